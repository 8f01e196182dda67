package planner_test

import (
	"context"
	"fmt"
	"strings"
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

// scriptModel answers like a well-behaved model would on the scripted
// conversation: it replies to a batch that calls for it, then continues.
type scriptModel struct {
	mu       sync.Mutex
	requests [][]state.ChatMessage
	replies  map[string]string // last line of a batch → reply ("" = none)
	channel  string
}

func (m *scriptModel) Complete(_ context.Context, req planner.Request) (planner.Response, error) {
	m.mu.Lock()
	m.requests = append(m.requests, req.Messages)
	m.mu.Unlock()
	st := req.Messages[len(req.Messages)-1].Content
	answer := `{"action":"continue"}`
	if strings.Contains(st, "New messages:") {
		for last, reply := range m.replies {
			if reply != "" && strings.Contains(st, prompts.Quote(last)) {
				answer = fmt.Sprintf(`{"action":"send_message","channelId":%q,"content":%q}`, m.channel, reply)
			}
		}
	}
	return planner.Response{Content: answer, Attempts: 1}, nil
}

type nopSender struct{ n int }

func (s *nopSender) Send(context.Context, state.Outgoing) (string, error) {
	s.n++
	return fmt.Sprint("sent-", s.n), nil
}

// TestLoopConversationCostAndPrefix plays the scripted 30-message group
// conversation through the real loop (scheduler, SQLite store, parser,
// handlers) and measures every model request.
func TestLoopConversationCostAndPrefix(t *testing.T) {
	long := t.TempDir()
	planner.WriteLongPersona(t, long)
	for _, tc := range []struct {
		name     string
		dir      string
		minShare float64
	}{
		// The compact default persona makes the system message short, so
		// the per-tick tail weighs more (about 115 tokens of 890 change
		// per call); the target is checked on a persona as long as the
		// reference bot's.
		{"default persona", "", 0.86},
		{"reference-length persona", long, 0.95},
	} {
		t.Run(tc.name, func(t *testing.T) { loopConversation(t, tc.dir, tc.minShare) })
	}
}

func loopConversation(t *testing.T, promptsDir string, minAvgShare float64) {
	ctx := context.Background()
	log := zaptest.NewLogger(t)
	st, err := sqlite.Open(ctx, t.TempDir()+"/airi.db", log)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	src, err := prompts.Load(promptsDir, log)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := actions.NewBuiltinRegistry(actions.NewHandlers(actions.HandlerDeps{Store: st, Sender: &nopSender{}, BotName: "Juni"}))
	if err != nil {
		t.Fatal(err)
	}
	ch := state.Channel{ID: "-1001234567890", Platform: "telegram", Group: true, Title: "Harbour Lights"}
	m := &scriptModel{replies: map[string]string{}, channel: ch.ID}
	for _, b := range planner.ScriptedConversation {
		_, text, _ := strings.Cut(b.Lines[len(b.Lines)-1], ": ")
		m.replies[text] = b.Reply
	}
	sched, err := scheduler.New(scheduler.Config{Debounce: 20 * time.Millisecond, NoPeriodic: true, NoContinueDelay: true, BotName: "Juni"}, scheduler.Deps{
		Store: st, Prompter: planner.NewBuilder(src, reg, planner.BuilderOptions{}), Model: m,
		Parser: parse.New(reg), Dispatcher: reg, Logger: log,
	})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	if err := sched.Start(runCtx); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		cctx, done := context.WithTimeout(ctx, 10*time.Second)
		defer done()
		if err := sched.Close(cctx); err != nil {
			t.Error(err)
		}
	}()

	n, users := 0, 0
	for _, b := range planner.ScriptedConversation {
		for _, l := range b.Lines {
			sender, text, _ := strings.Cut(l, ": ")
			n++
			users++
			msg := state.Message{ChannelID: ch.ID, PlatformID: fmt.Sprint("m", n), SenderName: sender, Content: text, Time: time.Now().UTC(), Mentioned: strings.Contains(text, "Juni")}
			if err := sched.Deliver(ctx, ch, msg); err != nil {
				t.Fatal(err)
			}
		}
		wctx, done := context.WithTimeout(ctx, 10*time.Second)
		err := sched.WaitIdle(wctx)
		done()
		if err != nil {
			t.Fatalf("never idle: %v", err)
		}
	}

	m.mu.Lock()
	reqs := append([][]state.ChatMessage(nil), m.requests...)
	m.mu.Unlock()
	if len(reqs) < 2 {
		t.Fatalf("only %d model calls", len(reqs))
	}
	// The system message changes only with the channel's facts (here:
	// the people seen), never from tick to tick otherwise.
	systems := map[string]bool{}
	for _, r := range reqs {
		systems[r[0].Content] = true
	}
	people := map[string]bool{}
	for _, b := range planner.ScriptedConversation {
		for _, l := range b.Lines {
			sender, _, _ := strings.Cut(l, ": ")
			people[sender] = true
		}
	}
	if len(systems) > len(people)+1 {
		t.Errorf("%d different system messages over %d calls with %d people joining", len(systems), len(reqs), len(people))
	}
	var tokens, share float64
	minShare := 1.0
	below := 0
	for i, r := range reqs {
		tokens += float64(planner.CountRequestTokens(t, r))
		if i == 0 {
			continue
		}
		s := planner.PrefixShare(reqs[i-1], r)
		share += s
		minShare = min(minShare, s)
		if s < 0.9 {
			below++
		}
	}
	tokens /= float64(len(reqs))
	share /= float64(len(reqs) - 1)
	t.Logf("%d distinct system messages", len(systems))
	t.Logf("real loop: %d user messages, %d calls (%.2f per message); %.0f prompt tokens per call (%.0f%% of the reference's %d); prefix reuse %.2f%% on average, min %.1f%%, %d of %d calls below 90%%",
		users, len(reqs), float64(len(reqs))/float64(users), tokens, 100*tokens/float64(planner.ReferenceTokens), planner.ReferenceTokens, 100*share, 100*minShare, below, len(reqs)-1)
	if share < minAvgShare {
		t.Errorf("average prefix reuse %.3f through the loop, want at least %.2f", share, minAvgShare)
	}
	if tokens > 0.60*float64(planner.ReferenceTokens) {
		t.Errorf("%.0f tokens per call, want at most 60%% of %d", tokens, planner.ReferenceTokens)
	}
}
