package cmdfiles

import "strings"

// simpleCmd is one simple command of a shell command line: its words with
// quotes removed, and the files it reads its input from.
type simpleCmd struct {
	words  []string
	inputs []string
}

// split reads a shell command line into its simple commands, as far as
// finding files needs: words are split at blanks and at the operators
// ; & | ( ) and newlines, quotes and backslashes are removed, and
// redirections are taken out of the words (an input's file is kept, an
// output's and a here-document's word dropped). Expansions are not done;
// a word keeps its $VAR as written.
func split(line string) []simpleCmd {
	var cmds []simpleCmd
	var cur simpleCmd
	var word strings.Builder
	inWord := false
	// redirect is what the next word is: "" a word, "<" an input's file,
	// ">" an output's file, dropped, "<<" a here-document's delimiter.
	redirect := ""
	// heredocs are the delimiters of the here-documents whose lines
	// follow the current line: data, not commands.
	var heredocs []string
	end := func() {
		if !inWord {
			return
		}
		w := word.String()
		word.Reset()
		inWord = false
		switch redirect {
		case "<":
			cur.inputs = append(cur.inputs, w)
		case "<<":
			heredocs = append(heredocs, w)
		case ">":
		default:
			cur.words = append(cur.words, w)
		}
		redirect = ""
	}
	next := func() {
		end()
		if len(cur.words) > 0 || len(cur.inputs) > 0 {
			cmds = append(cmds, cur)
		}
		cur = simpleCmd{}
		redirect = ""
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line):
			i++
			if line[i] != '\n' {
				word.WriteByte(line[i])
				inWord = true
			}
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				j = len(line) - i - 1
			}
			word.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`\n", line[i+1]) >= 0 {
					i++
				}
				word.WriteByte(line[i])
			}
			inWord = true
		case c == ' ' || c == '\t':
			end()
		case c == '\n':
			next()
			if len(heredocs) > 0 {
				i = skipHeredocs(line, i+1, heredocs) - 1
				heredocs = nil
			}
		case c == ';' || c == '&' || c == '|' || c == '(' || c == ')':
			if c == '&' && i+1 < len(line) && line[i+1] == '>' {
				// &> and &>> send both outputs to a file.
				end()
				redirect = ">"
				i++
				for i+1 < len(line) && line[i+1] == '>' {
					i++
				}
				continue
			}
			next()
		case c == '<' || c == '>':
			// A word of digits just before is the descriptor: 2>.
			if inWord && isNumber(word.String()) {
				word.Reset()
				inWord = false
			} else {
				end()
			}
			j := i + 1
			for j < len(line) && strings.IndexByte("<>&|", line[j]) >= 0 {
				j++
			}
			op := line[i:j]
			i = j - 1
			switch {
			case op == "<" || op == "<>":
				redirect = "<"
			case op == "<<" || op == "<<-":
				redirect = "<<"
			case strings.HasPrefix(op, "<<"):
				// A here-string: a word, not a file.
				redirect = ">"
			case strings.HasSuffix(op, "&"):
				// >&2 and the like: a descriptor, not a file, unless a
				// word follows with no digits.
				redirect = ">"
			default:
				redirect = ">"
			}
		case c == '#' && !inWord:
			// A comment runs to the end of the line.
			for i < len(line) && line[i] != '\n' {
				i++
			}
			i--
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	next()
	return cmds
}

// skipHeredocs returns the index in line just past the here-documents that
// begin at start, one after the other, each ending at a line that is its
// delimiter (tabs before it allowed, for <<-).
func skipHeredocs(line string, start int, delimiters []string) int {
	i := start
	for _, d := range delimiters {
		for i < len(line) {
			end := strings.IndexByte(line[i:], '\n')
			if end < 0 {
				end = len(line) - i
			}
			l := strings.TrimLeft(line[i:i+end], "\t")
			i += end + 1
			if l == d {
				break
			}
		}
	}
	return min(i, len(line))
}
