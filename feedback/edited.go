package feedback

import (
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// EditedDiffMax bounds the diff PersonEdited shows; a longer one is cut,
// with a note on how to see the rest.
const EditedDiffMax = 8 << 10

// PersonEdited is what the model reads, after the tool's own output, when
// the person changed the file content a call proposed before approving it:
// the file does not hold what the model proposed, and a compact diff (three
// lines of context, the file's own line numbers) shows how what it now holds
// differs, so the model's next step starts from the truth.
func PersonEdited(path, proposed, actual string) string {
	edits := udiff.Lines(proposed, actual)
	d, err := udiff.ToUnified("your proposal", path+" now", proposed, edits, 3)
	if err != nil || d == "" {
		return fmt.Sprintf("The person edited your change to %s before approving it; read the file to see what it now holds.", path)
	}
	// The two label lines say nothing the sentence does not.
	if _, rest, ok := strings.Cut(d, "\n+++ "); ok {
		if _, body, ok := strings.Cut(rest, "\n"); ok {
			d = body
		}
	}
	if len(d) > EditedDiffMax {
		cut := d[:EditedDiffMax]
		if i := strings.LastIndexByte(cut, '\n'); i > 0 {
			cut = cut[:i+1]
		}
		d = cut + fmt.Sprintf("… the diff goes on for %d more bytes; read %s to see the rest\n", len(d)-len(cut), path)
	}
	return fmt.Sprintf("The person edited your change to %s before approving it, so the file does not hold exactly what "+
		"you proposed. How the file now differs from your proposal (- your lines, + the person's):\n%s"+
		"Work from the file as it is now.", path, d)
}
