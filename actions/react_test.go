package actions_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/state"
)

// fakeReactor sets reactions, or answers err.
type fakeReactor struct {
	set []state.Reacting
	err error
}

func (f *fakeReactor) React(_ context.Context, r state.Reacting) error {
	if f.err != nil && !errors.Is(f.err, state.ErrOutcomeUnknown) {
		return f.err
	}
	f.set = append(f.set, r) // an unknown outcome did reach the platform
	return f.err
}

// outboxLog is the handlers' store with every outbox entry and outcome
// kept, so a test can see what a reaction recorded.
type outboxLog struct {
	actions.Store
	mu      sync.Mutex
	entries []state.OutboxEntry
}

func (o *outboxLog) AddOutbox(ctx context.Context, e state.OutboxEntry) (int64, error) {
	id, err := o.Store.AddOutbox(ctx, e)
	if err == nil {
		o.mu.Lock()
		e.ID = id
		o.entries = append(o.entries, e)
		o.mu.Unlock()
	}
	return id, err
}

func (o *outboxLog) SetOutboxState(ctx context.Context, id int64, st state.OutboxState, platformID, errText string) error {
	o.mu.Lock()
	for i := range o.entries {
		if o.entries[i].ID == id {
			o.entries[i].State = st
		}
	}
	o.mu.Unlock()
	return o.Store.SetOutboxState(ctx, id, st, platformID, errText)
}

func reactFixture(t *testing.T) (*fixture, *fakeReactor, *outboxLog) {
	r := &fakeReactor{}
	var log *outboxLog
	f := newFixtureWith(t, func(f *fixture, d *actions.HandlerDeps) {
		log = &outboxLog{Store: d.Store}
		d.Store = log
		d.Reactor = r
	})
	return f, r, log
}

func reactRaw(channel, message, emoji, then string) string {
	s := fmt.Sprintf(`react {"channelId":%q,"messageId":%q,"emoji":%q`, channel, message, emoji)
	if then != "" {
		s += fmt.Sprintf(`,"then":%q`, then)
	}
	return s + "}"
}

func TestReactGoesThroughOutbox(t *testing.T) {
	f, r, log := reactFixture(t)
	res := f.run(t, reactRaw("c1", "812", "👍", ""), actions.Call{})
	if !res.OK || !res.EndsTurn || !res.Answered || len(r.set) != 1 {
		t.Fatalf("result %+v, set %v", res, r.set)
	}
	if got := r.set[0]; got != (state.Reacting{ChannelID: "c1", MessageID: "812", Emoji: "👍"}) {
		t.Errorf("reaction set %+v", got)
	}
	if len(log.entries) != 1 || log.entries[0].Kind != state.OutboxReaction || log.entries[0].Content != "👍" ||
		log.entries[0].ReplyTo != "812" || log.entries[0].State != state.OutboxDone {
		t.Errorf("outbox %+v, want one reaction entry, done", log.entries)
	}
	if len(res.Effects) != 1 || res.Effects[0].Kind != "react" || res.Effects[0].MessageID != "812" {
		t.Errorf("effects %+v", res.Effects)
	}
	if pending, err := f.st.PendingOutbox(context.Background()); err != nil || len(pending) != 0 {
		t.Errorf("pending outbox %v, %v", pending, err)
	}

	next := f.run(t, reactRaw("c1", "813", "👍", "next"), actions.Call{})
	if !next.OK || next.EndsTurn || !next.Next {
		t.Errorf(`"then": "next" result %+v, want another call`, next)
	}

	again := f.run(t, reactRaw("c1", "812", "👍", ""), actions.Call{})
	if again.OK || len(r.set) != 2 || !strings.Contains(again.Text, "already reacted") {
		t.Errorf("a repeated reaction: %+v, %d set; want it refused", again, len(r.set))
	}
	if len(log.entries) != 2 {
		t.Errorf("a refused repeat left an outbox entry: %+v", log.entries)
	}
}

func TestReactRate(t *testing.T) {
	f, r, _ := reactFixture(t)
	for i := range actions.ReactRate {
		if res := f.run(t, reactRaw("c1", fmt.Sprint(i+1), "👍", ""), actions.Call{}); !res.OK {
			t.Fatalf("reaction %d refused: %s", i+1, res.Text)
		}
	}
	over := f.run(t, reactRaw("c1", "100", "👍", ""), actions.Call{})
	if over.OK || !strings.Contains(over.Text, "within the last minute") {
		t.Errorf("reaction over the rate: %+v", over)
	}
	if other := f.run(t, reactRaw("c2", "100", "👍", ""), actions.Call{}); !other.OK {
		t.Errorf("another channel's reaction refused: %s", other.Text)
	}
	f.now = f.now.Add(time.Minute + time.Second)
	if later := f.run(t, reactRaw("c1", "100", "👍", ""), actions.Call{}); !later.OK {
		t.Errorf("reaction a minute later refused: %s", later.Text)
	}
	if len(r.set) != actions.ReactRate+2 {
		t.Errorf("%d reactions set, want %d", len(r.set), actions.ReactRate+2)
	}
}

func TestReactFailures(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		state state.OutboxState
		want  []string
	}{
		{"refused emoji", &state.RefusedReactionError{Emoji: "🦖", Allowed: []string{"👍", "🔥"}}, state.OutboxFailed,
			[]string{"not set", "does not take 🦖", "use one of 👍 🔥"}},
		{"outcome unknown", fmt.Errorf("telegram react: %w: connection reset", state.ErrOutcomeUnknown), state.OutboxUnknown,
			[]string{"may or may not have been set", "will not be repeated"}},
		{"platform error", errors.New("chat not found"), state.OutboxFailed, []string{"failed", "chat not found"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, r, log := reactFixture(t)
			r.err = tt.err
			res := f.run(t, reactRaw("c1", "812", "🦖", ""), actions.Call{})
			if res.OK || !res.Next || res.EndsTurn {
				t.Errorf("result %+v, want a failure the model reads next", res)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("result %q lacks %q", res.Text, w)
				}
			}
			if len(log.entries) != 1 || log.entries[0].State != tt.state {
				t.Errorf("outbox %+v, want one entry %s", log.entries, tt.state)
			}
			if tt.state == state.OutboxUnknown {
				// Never repeated: the same reaction again is refused.
				again := f.run(t, reactRaw("c1", "812", "🦖", ""), actions.Call{})
				if again.OK || len(r.set) != 1 {
					t.Errorf("a reaction of unknown outcome went out again: %+v, %d set", again, len(r.set))
				}
			}
		})
	}
}

func TestReactWithoutReactor(t *testing.T) {
	f := newFixture(t)
	res := f.run(t, reactRaw("c1", "812", "👍", ""), actions.Call{})
	if res.OK || !strings.Contains(res.Text, "not available") {
		t.Errorf("result %+v", res)
	}
	unknown := f.run(t, reactRaw("nope", "812", "👍", ""), actions.Call{})
	if unknown.OK || !strings.Contains(unknown.Text, "unknown channel") {
		t.Errorf("unknown channel: %+v", unknown)
	}
}
