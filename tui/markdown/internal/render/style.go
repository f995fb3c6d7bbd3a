package render

// Flag is a style attribute that is on, off, or left to the enclosing
// element: a heading may turn off the bold that all headings have.
type Flag uint8

// The values of a Flag.
const (
	Inherit Flag = iota // as the enclosing element has it
	On
	Off
)

// Primitive is the style of a piece of text: the text around it, its
// colours and attributes, and what it is formatted as.
//
// A colour is a terminal colour number ("252") or an RGB colour ("#C4C4C4");
// the empty string leaves the colour to the enclosing element.
type Primitive struct {
	// BlockPrefix and BlockSuffix are written before and after the text
	// in the enclosing element's style; Prefix and Suffix in the text's.
	BlockPrefix, BlockSuffix string
	Prefix, Suffix           string

	Color, BackgroundColor string

	Underline, Bold, Italic, CrossedOut, Inverse, Blink Flag

	// Format, when set, is what the text is written as: each {{.text}}
	// in it stands for the text. It is never a template of anything
	// else.
	Format string
}

// Block is the style of an element that holds others, such as a quote or a
// list.
type Block struct {
	Primitive

	// Indent is how many times each line of the block is indented, with
	// IndentToken (a space when empty); Margin adds that many spaces more,
	// and takes twice as many columns from the width of what the block
	// holds.
	Indent      uint
	IndentToken string
	Margin      uint
}

// CodeBlock is the style of a code block.
type CodeBlock struct {
	Block

	// Chroma, when set and the terminal has colours, says that code
	// blocks are highlighted: they reach the renderer highlighted
	// already, and are written as they are. Its colours are those of the
	// highlighting.
	Chroma *Chroma
}

// Chroma is the style of each kind of token in highlighted code. Only a
// token's colours, and its bold, italic and underline attributes, are used.
type Chroma struct {
	Text, Error, Comment, CommentPreproc                     Primitive
	Keyword, KeywordReserved, KeywordNamespace, KeywordType  Primitive
	Operator, Punctuation                                    Primitive
	Name, NameBuiltin, NameTag, NameAttribute, NameClass     Primitive
	NameConstant, NameDecorator, NameException, NameFunction Primitive
	NameOther                                                Primitive
	Literal, LiteralNumber, LiteralDate, LiteralString       Primitive
	LiteralStringEscape                                      Primitive
	GenericDeleted, GenericEmph, GenericInserted             Primitive
	GenericStrong, GenericSubheading                         Primitive
	Background                                               Primitive
}

// List is the style of a list.
type List struct {
	Block

	// LevelIndent is the indentation of a list inside another list.
	LevelIndent uint
}

// Task is the style of a task list item's box.
type Task struct {
	Primitive
	Ticked, Unticked string
}

// Table is the style of a table.
type Table struct {
	Block

	// The separators drawn between the table's rows and columns and
	// where they cross; when the row or the column separator is empty,
	// the table has lipgloss's normal border.
	CenterSeparator, ColumnSeparator, RowSeparator string
}

// Config is the style of every element of a document.
type Config struct {
	Document   Block
	BlockQuote Block
	Paragraph  Block
	List       List

	// Heading is the style of all headings, which H[level-1] refines.
	Heading Block
	H       [6]Block

	Text           Primitive
	Strikethrough  Primitive
	Emph           Primitive
	Strong         Primitive
	HorizontalRule Primitive

	Item        Primitive
	Enumeration Primitive
	Task        Task

	Link     Primitive
	LinkText Primitive

	Image     Primitive
	ImageText Primitive

	Code      Block
	CodeBlock CodeBlock

	Table Table

	DefinitionList        Block
	DefinitionTerm        Primitive
	DefinitionDescription Primitive

	HTMLBlock Block
	HTMLSpan  Block
}

// inherit returns child with the colours and attributes it leaves to the
// enclosing element taken from parent; with all set, its prefixes and
// suffixes too. The format is always child's.
func inherit(parent, child Primitive, all bool) Primitive {
	s := child
	if s.Color == "" {
		s.Color = parent.Color
	}
	if s.BackgroundColor == "" {
		s.BackgroundColor = parent.BackgroundColor
	}
	for _, f := range [...]struct{ s, p *Flag }{
		{&s.Underline, &parent.Underline}, {&s.Bold, &parent.Bold}, {&s.Italic, &parent.Italic},
		{&s.CrossedOut, &parent.CrossedOut}, {&s.Inverse, &parent.Inverse}, {&s.Blink, &parent.Blink},
	} {
		if *f.s == Inherit {
			*f.s = *f.p
		}
	}
	if all {
		for _, f := range [...]struct{ s, p *string }{
			{&s.BlockPrefix, &parent.BlockPrefix}, {&s.BlockSuffix, &parent.BlockSuffix},
			{&s.Prefix, &parent.Prefix}, {&s.Suffix, &parent.Suffix},
		} {
			if *f.s == "" {
				*f.s = *f.p
			}
		}
	}
	return s
}

// inheritBlock is inherit for blocks. With all set, the indentation is
// parent's unless child sets one, and the margin is always parent's; the
// indentation token is always child's.
func inheritBlock(parent, child Block, all bool) Block {
	s := child
	s.Primitive = inherit(parent.Primitive, child.Primitive, all)
	if all {
		s.Margin = parent.Margin
		if child.Indent == 0 {
			s.Indent = parent.Indent
		}
	}
	return s
}
