package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad feeds the journal loader any bytes: it must refuse them with an
// error, or recover a session (a damaged last line cut off and reported),
// never panic; and a session it recovers must be one a resume can use.
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob("testdata/seeds/*.jsonl")
	if len(files) == 0 {
		f.Fatal("no seed journals")
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		// A torn copy of each, as a crash while writing leaves it.
		f.Add(data[:len(data)*2/3])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rp, err := parse("fuzz.jsonl", data)
		if err != nil {
			if rp != nil {
				t.Fatal("a replay with an error")
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("the error is not one line: %q", err)
			}
			return
		}
		_ = rp.Describe()
		for _, m := range rp.Session.Messages {
			if m.Role == "" {
				t.Fatal("a rebuilt message without a role")
			}
		}
		if rp.Interrupted != nil {
			last := rp.Session.Messages[len(rp.Session.Messages)-1]
			if len(rp.Interrupted.Calls) != len(last.Calls) {
				t.Fatalf("an interrupted reply of %d calls with %d recorded", len(last.Calls), len(rp.Interrupted.Calls))
			}
		}
	})
}
