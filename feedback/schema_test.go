package feedback

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/agenttui/agenttui/runtime/tool"
)

// TestSchemasAreCheckedAgainstTheirDraft checks that a tool's schema is
// still checked against its draft's meta-schema now that the meta-schemas
// are compiled on first use (third_party/jsonschema) instead of when the
// program starts: a schema that is not a schema is refused, whichever draft
// it names, even when the first uses of the drafts come at the same time.
func TestSchemasAreCheckedAgainstTheirDraft(t *testing.T) {
	drafts := map[string]string{
		"": "https://json-schema.org/draft/2020-12/schema#",
		"https://json-schema.org/draft/2020-12/schema": "https://json-schema.org/draft/2020-12/schema#",
		"https://json-schema.org/draft/2019-09/schema": "https://json-schema.org/draft/2019-09/schema#",
		"http://json-schema.org/draft-07/schema#":      "http://json-schema.org/draft-07/schema#",
		"http://json-schema.org/draft-06/schema#":      "http://json-schema.org/draft-06/schema#",
		"http://json-schema.org/draft-04/schema#":      "http://json-schema.org/draft-04/schema#",
	}
	var wg sync.WaitGroup
	for draft, meta := range drafts {
		for range 4 {
			wg.Go(func() {
				named := ""
				if draft != "" {
					named = `"$schema":"` + draft + `",`
				}
				bad := `{` + named + `"type":"object","properties":{"n":{"type":"integer","minimum":"zero"}}}`
				_, err := CompileSchema(tool.Declaration{Name: "t", Parameters: json.RawMessage(bad)})
				if err == nil || !strings.Contains(err.Error(), "does not validate with "+meta) ||
					!strings.Contains(err.Error(), "minimum/type: expected number, but got string") {
					t.Errorf("draft %q: a minimum that is a string was not refused by the meta-schema: %v", draft, err)
				}
				good := `{` + named + `"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`
				s, err := CompileSchema(tool.Declaration{Name: "t", Parameters: json.RawMessage(good)})
				if err != nil {
					t.Errorf("draft %q: a good schema was refused: %v", draft, err)
					return
				}
				if refusal, refused := ArgumentsRefusal(s, `{"n":0}`); !refused || !strings.Contains(refusal, "/n: ") {
					t.Errorf("draft %q: n=0 below the minimum was not refused: %q", draft, refusal)
				}
			})
		}
	}
	wg.Wait()
}
