package scheduler_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/parse"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// leases is a Leases whose answer the test sets, counting pins.
type leases struct {
	mu     sync.Mutex
	held   bool
	pinned int
	pins   int
}

func (l *leases) Pin(string) (func(), bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.held {
		return nil, false
	}
	l.pinned++
	l.pins++
	return func() {
		l.mu.Lock()
		l.pinned--
		l.mu.Unlock()
	}, true
}

// TestLeasesGateTicks: a channel whose lease another process holds is
// never ticked here; once held, every tick pins it and unpins it after.
func TestLeasesGateTicks(t *testing.T) {
	ctx := context.Background()
	log := zaptest.NewLogger(t)
	st, err := sqlite.Open(ctx, t.TempDir()+"/airi.db", log)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	src, err := prompts.Load("", log)
	if err != nil {
		t.Fatal(err)
	}
	snd := newSender()
	reg, err := actions.NewBuiltinRegistry(actions.NewHandlers(actions.HandlerDeps{Store: st, Sender: snd, BotName: "Bot"}))
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(echo)
	ls := &leases{}
	sched, err := scheduler.New(scheduler.Config{BotName: "Bot", NoContinueDelay: true, NoPeriodic: true}, scheduler.Deps{
		Store: st, Prompter: planner.NewBuilder(src, reg, planner.BuilderOptions{}), Model: m,
		Parser: parse.New(reg), Dispatcher: reg, Logger: log, Leases: ls,
	})
	if err != nil {
		t.Fatal(err)
	}
	ch := state.Channel{ID: "c1", Platform: "console"}
	if _, _, err := st.Ingest(ctx, state.Message{ChannelID: "c1", PlatformID: "m1", SenderName: "ann", Content: "ping 1", Time: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := st.UpsertChannel(ctx, ch); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		held    bool
		skipped bool
	}{
		{"held elsewhere", false, true},
		{"held here", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ls.mu.Lock()
			ls.held = tt.held
			ls.mu.Unlock()
			rep := sched.Wake(ctx, "c1", "message")
			if rep.Skipped != tt.skipped {
				t.Errorf("Skipped = %v, want %v", rep.Skipped, tt.skipped)
			}
			ls.mu.Lock()
			defer ls.mu.Unlock()
			if ls.pinned != 0 {
				t.Errorf("%d pins left after the wake", ls.pinned)
			}
			// Every model call ran under a pin; none ran without the lease.
			if calls := len(m.requests()); calls != ls.pins || tt.held != (calls > 0) {
				t.Errorf("model calls = %d, pins = %d, held = %v", calls, ls.pins, tt.held)
			}
		})
	}
}
