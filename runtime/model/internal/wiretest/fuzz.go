package wiretest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agenttui/agenttui/runtime/model"
)

// FuzzStream fuzzes a provider's handling of a reply stream: a local server
// answers every request with the fuzzed bytes as server-sent events, and the
// model must turn them into a reply or an error, within the stall timeout
// newModel sets, never panic; an error is one line and a reply's calls are
// whole. The seed corpus is every file of dir, real streams in the
// provider's wire format.
func FuzzStream(f *testing.F, dir string, newModel func(base string) model.Model) {
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) == 0 {
		f.Fatalf("no seed streams in %s", dir)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	var mu sync.Mutex // guards body
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		b := body
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(b)
	}))
	f.Cleanup(srv.Close)
	m := newModel(srv.URL)
	req := model.Request{Messages: []model.Message{{Role: model.RoleUser, Text: "go"}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		mu.Lock()
		body = data
		mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		reply, err := m.Reply(ctx, req, func(model.Delta) {})
		if ctx.Err() != nil {
			t.Fatal("the model did not return within 10 s")
		}
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("the error is not one line: %q", err)
			}
			return
		}
		if !utf8.ValidString(reply.Text) {
			t.Fatalf("the reply text is not valid UTF-8: %q", reply.Text)
		}
		for _, c := range reply.Calls {
			if c.Name == "" {
				t.Fatalf("a call without a name: %+v", c)
			}
		}
	})
}
