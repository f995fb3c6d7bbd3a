package model_test

import (
	"context"
	"testing"

	"github.com/agenttui/agenttui/runtime/model"
)

// named is a model that only has a name and answers with it.
type named string

func (n named) Name() string { return string(n) }
func (n named) Reply(context.Context, model.Request, func(model.Delta)) (model.Reply, error) {
	return model.Reply{Text: string(n)}, nil
}

func TestSwitchableAsksTheLatestModel(t *testing.T) {
	s := model.NewSwitchable(nil)
	if s.Name() != "" || s.Current() != nil {
		t.Fatal("an empty switchable has a model")
	}
	s.Set(named("a"))
	s.Set(named("b"))
	r, err := s.Reply(context.Background(), model.Request{}, nil)
	if err != nil || r.Text != "b" || s.Name() != "b" {
		t.Fatalf("reply %q, name %q, %v", r.Text, s.Name(), err)
	}
}
