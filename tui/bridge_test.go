package tui

import (
	"context"
	"sync"
	"testing"

	"github.com/agenttui/agenttui/approval"
	"github.com/agenttui/agenttui/runtime"
)

func TestSinkNeverBlocksAndKeepsOrder(t *testing.T) {
	b := NewBridge(nil)
	// Nobody reads: the sink must still take every event at once.
	for i := 0; i < 100_000; i++ {
		b.Sink(runtime.TextDelta{Turn: 1, Text: string(rune('a' + i%26))})
	}
	msg := b.wait()()
	batch, ok := msg.(eventsMsg)
	if !ok || len(batch) != 100_000 {
		t.Fatalf("one batch of 100000 events expected, got %T of %d", msg, len(batch))
	}
	for i, e := range batch {
		if e.(runtime.TextDelta).Text != string(rune('a'+i%26)) {
			t.Fatalf("event %d out of order", i)
		}
	}
}

func TestApproveWaitsForTheAnswer(t *testing.T) {
	b := NewBridge(nil)
	got := make(chan approval.Answer)
	go func() { got <- b.Approve(context.Background(), approval.Request{Turn: 1, Index: 2}) }()
	batch := b.wait()().(eventsMsg)
	req := batch[0].(approvalRequest)
	if req.Req.Index != 2 {
		t.Fatalf("request for call %d", req.Req.Index)
	}
	req.answer <- approval.SkipWith("no")
	if a := <-got; a.Approve || a.Reason != "no" {
		t.Fatalf("Approve returned %+v", a)
	}
}

func TestApproveReturnsWhenContextEnds(t *testing.T) {
	b := NewBridge(nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		b.Approve(ctx, approval.Request{Turn: 1})
		close(done)
	}()
	req := b.wait()().(eventsMsg)[0].(approvalRequest)
	cancel()
	<-done
	gone := b.wait()().(eventsMsg)[0].(approvalGone)
	if gone.id != req.ID {
		t.Fatalf("gone %d, want %d", gone.id, req.ID)
	}
}

func TestManyApprovalsAtOnce(t *testing.T) {
	b := NewBridge(nil)
	var wg sync.WaitGroup
	results := make([]approval.Answer, 20)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = b.Approve(context.Background(), approval.Request{Turn: 1, Index: i})
		}()
	}
	seen := 0
	for seen < len(results) {
		for _, item := range b.wait()().(eventsMsg) {
			r := item.(approvalRequest)
			r.answer <- approval.Answer{Approve: r.Req.Index%2 == 0}
			seen++
		}
	}
	wg.Wait()
	for i, a := range results {
		if a.Approve != (i%2 == 0) {
			t.Fatalf("call %d got %+v", i, a)
		}
	}
}

func TestCloseReleasesEverything(t *testing.T) {
	b := NewBridge(nil)
	done := make(chan approval.Answer)
	go func() { done <- b.Approve(context.Background(), approval.Request{}) }()
	b.wait()()
	b.Close()
	if a := <-done; a.Approve {
		t.Fatal("a closed console approved a call")
	}
	if msg := b.wait()(); msg != nil {
		t.Fatalf("wait after Close returned %T", msg)
	}
	b.Sink(runtime.TurnEnded{}) // dropped, not blocked
}
