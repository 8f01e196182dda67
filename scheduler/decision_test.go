package scheduler_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// decisionCounter is the SQLite store counting the decisions recorded
// after a message was stored.
type decisionCounter struct {
	*sqlite.Store
	n atomic.Int32
}

func (c *decisionCounter) SetDecision(ctx context.Context, ids []int64, decision string) error {
	c.n.Add(1)
	return c.Store.SetDecision(ctx, ids, decision)
}

// TestDirectDecisionStoredWithMessage: a direct chat's message is stored
// with its decision, "direct", and needs no write of its own; a group
// message is decided after it is stored and recorded then.
func TestDirectDecisionStoredWithMessage(t *testing.T) {
	ctx := context.Background()
	var store *decisionCounter
	set := attention.Defaults()
	set.AmbientEvery = 1 << 30 // an unaddressed group message wakes nothing
	h := newHarnessWrap(t, scheduler.Config{Attention: &attention.Policy{Default: set}}, newModel(echo), zaptest.NewLogger(t),
		func(st *sqlite.Store) scheduler.Store {
			store = &decisionCounter{Store: st}
			return store
		})
	s, st := h.sched, h.store

	tests := []struct {
		name   string
		ch     state.Channel
		want   string
		writes int32
	}{
		{"direct chat", state.Channel{ID: "d1", Platform: "telegram", Title: "Ann"}, attention.ReasonDirect, 0},
		{"group, not addressed", state.Channel{ID: "g1", Platform: "telegram", Group: true, Title: "Club"}, attention.SkipUnaddressed, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := store.n.Load()
			msg := state.Message{ChannelID: tt.ch.ID, PlatformID: "m-" + tt.ch.ID, SenderID: "u1", SenderName: "Ann",
				Content: "the ferry is late again", Time: time.Now().UTC()}
			if err := s.Deliver(ctx, tt.ch, msg); err != nil {
				t.Fatal(err)
			}
			unread, err := st.Unread(ctx, tt.ch.ID, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(unread) != 1 || unread[0].Decision != tt.want {
				t.Fatalf("stored %+v, want one message decided %q", unread, tt.want)
			}
			if got := store.n.Load() - before; got != tt.writes {
				t.Errorf("%d decisions recorded after the message was stored, want %d", got, tt.writes)
			}
		})
	}
}
