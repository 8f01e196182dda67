package scheduler_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tiktoken-go/tokenizer"
	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/parse"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// turnRig is the real core (SQLite store, embedded prompts, built-in
// actions, parser, scheduler) driven wake by wake, without the loop's
// timers, so that what a wake does is deterministic.
type turnRig struct {
	tb     testing.TB
	ctx    context.Context
	sched  *scheduler.Scheduler
	store  *sqlite.Store
	sender *flakySender
	model  *model
	n      int
	at     time.Time
}

// flakySender records what it sends and fails the sends it is told to.
type flakySender struct {
	mu   sync.Mutex
	sent []state.Outgoing
	fail map[int]error // the n-th attempt (from 1) fails with this error
	try  int
}

func (s *flakySender) Send(_ context.Context, out state.Outgoing) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.try++
	if err := s.fail[s.try]; err != nil {
		return "", err
	}
	s.sent = append(s.sent, out)
	return fmt.Sprintf("sent-%d", len(s.sent)), nil
}

func (s *flakySender) contents() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.sent))
	for i, o := range s.sent {
		out[i] = o.ChannelID + ": " + o.Content
	}
	return out
}

func newTurnRig(tb testing.TB, turn scheduler.Turn, answer func(r *turnRig, n int, req planner.Request) string) *turnRig {
	tb.Helper()
	ctx := context.Background()
	log := zap.NewNop()
	st, err := sqlite.Open(ctx, tb.TempDir()+"/airi.db", log)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = st.Close() })
	src, err := prompts.Load("", log)
	if err != nil {
		tb.Fatal(err)
	}
	r := &turnRig{tb: tb, ctx: ctx, store: st, sender: &flakySender{fail: map[int]error{}},
		at: time.Date(2026, 3, 14, 21, 0, 0, 0, time.UTC)}
	reg, err := actions.NewBuiltinRegistry(actions.NewHandlers(actions.HandlerDeps{Store: st, Sender: r.sender, BotName: "Bot", Now: r.now}))
	if err != nil {
		tb.Fatal(err)
	}
	r.model = newModel(func(_ context.Context, n int, req planner.Request) (string, error) {
		return answer(r, n, req), nil
	})
	r.model.called = make(chan int, 1<<16)
	r.sched, err = scheduler.New(scheduler.Config{
		NoContinueDelay: true, NoPeriodic: true, NoDebounce: true, BotName: "Bot", Now: r.now, Turn: turn,
	}, scheduler.Deps{
		Store: st, Prompter: planner.NewBuilder(src, reg, planner.BuilderOptions{}), Model: r.model,
		Parser: parse.New(reg), Dispatcher: reg, Logger: log,
	})
	if err != nil {
		tb.Fatal(err)
	}
	for _, ch := range []state.Channel{{ID: "c2", Platform: "console", Title: "elsewhere"}} {
		if err := st.UpsertChannel(ctx, ch); err != nil {
			tb.Fatal(err)
		}
	}
	return r
}

// now is the rig's clock: a few seconds per message, so prompts look real.
func (r *turnRig) now() time.Time { return r.at }

// say delivers "text msg-N" to the direct chat c1 and returns its token.
func (r *turnRig) say(text string) string {
	r.tb.Helper()
	r.n++
	r.at = r.at.Add(7 * time.Second)
	tok := fmt.Sprintf("msg-%d", r.n)
	ch := state.Channel{ID: "c1", Platform: "console", Title: "direct"}
	err := r.sched.Deliver(r.ctx, ch, state.Message{ChannelID: "c1", PlatformID: fmt.Sprint("p", r.n), SenderName: "you",
		Content: text + " " + tok, Time: r.at})
	if err != nil {
		r.tb.Fatal(err)
	}
	return tok
}

// settle runs wakes until nothing is unread in c1, as the loop would (a
// message wake, then wakes for what arrived meanwhile), and returns the
// reports.
func (r *turnRig) settle() []scheduler.WakeReport {
	r.tb.Helper()
	var reps []scheduler.WakeReport
	trigger := scheduler.TriggerMessage
	for i := 0; i < 10; i++ {
		rep := r.sched.Wake(r.ctx, "c1", trigger)
		reps = append(reps, rep)
		if rep.Capped && rep.Unanswered {
			trigger = scheduler.TriggerRearm
			continue
		}
		counts, err := r.store.UnreadCounts(r.ctx)
		if err != nil {
			r.tb.Fatal(err)
		}
		if counts["c1"] == 0 {
			return reps
		}
		trigger = "unread"
	}
	r.tb.Fatal("c1 never settled")
	return nil
}

// unacked lists the msg-N tokens a request shows that no send has acknowledged.
func (r *turnRig) unacked(req planner.Request) []string {
	acked := map[string]bool{}
	for _, s := range r.sender.contents() {
		for _, tok := range msgToken.FindAllString(s, -1) {
			acked[tok] = true
		}
	}
	var todo []string
	for _, m := range req.Messages {
		for _, tok := range msgToken.FindAllString(m.Content, -1) {
			if !acked[tok] && !contains(todo, tok) {
				todo = append(todo, tok)
			}
		}
	}
	return todo
}

// plainAnswer is the model the protocol asks for: a plain send_message for
// whatever is new, continue otherwise.
func plainAnswer(r *turnRig, _ int, req planner.Request) string {
	if todo := r.unacked(req); len(todo) > 0 {
		return fmt.Sprintf(`{"action":"send_message","channelId":"c1","content":"ack %s"}`, strings.Join(todo, " "))
	}
	return `{"action":"continue"}`
}

// moreAnswer asks for more after each send, then continues.
func moreAnswer(r *turnRig, _ int, req planner.Request) string {
	if todo := r.unacked(req); len(todo) > 0 {
		return fmt.Sprintf(`{"action":"send_message","channelId":"c1","content":"ack %s","then":"next"}`, strings.Join(todo, " "))
	}
	return `{"action":"continue"}`
}

// ackedOnce checks that every token was acknowledged exactly once.
func ackedOnce(tb testing.TB, sent []string, toks []string) {
	tb.Helper()
	count := map[string]int{}
	for _, s := range sent {
		for _, tok := range msgToken.FindAllString(s, -1) {
			count[tok]++
		}
	}
	for _, tok := range toks {
		if count[tok] != 1 {
			tb.Errorf("%s answered %d times (sent %q)", tok, count[tok], sent)
		}
	}
}

// turnCost is what a conversation cost: model calls and prompt tokens.
type turnCost struct {
	messages, calls, tokens int
}

func (c turnCost) callsPerMessage() float64  { return float64(c.calls) / float64(c.messages) }
func (c turnCost) tokensPerMessage() float64 { return float64(c.tokens) / float64(c.messages) }

// cost counts the model calls and their o200k prompt tokens.
func (r *turnRig) cost(messages int) turnCost {
	r.tb.Helper()
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		r.tb.Fatal(err)
	}
	c := turnCost{messages: messages}
	for _, req := range r.model.requests() {
		c.calls++
		for _, m := range req.Messages {
			n, err := enc.Count(m.Content)
			if err != nil {
				r.tb.Fatal(err)
			}
			// A few tokens of framing per message, as chat APIs count.
			c.tokens += n + 4
		}
	}
	return c
}

// directConversation plays 30 messages one at a time, each settled before
// the next.
func directConversation(tb testing.TB, turn scheduler.Turn, answer func(*turnRig, int, planner.Request) string) (*turnRig, []string) {
	r := newTurnRig(tb, turn, answer)
	var toks []string
	for i := 0; i < 30; i++ {
		toks = append(toks, r.say(fmt.Sprintf("line %d of a quiet night chat about tides, tea and the ferry log,", i+1)))
		r.settle()
	}
	return r, toks
}

// burstConversation plays six messages where each next one arrives while
// the model decides (the burst that starves the reference bot), then
// settles.
func burstConversation(tb testing.TB, turn scheduler.Turn) (*turnRig, []string) {
	const total = 6
	var toks []string
	r := newTurnRig(tb, turn, func(r *turnRig, n int, req planner.Request) string {
		if len(toks) < total {
			toks = append(toks, r.say("and another thing,"))
		}
		return plainAnswer(r, n, req)
	})
	toks = append(toks, r.say("hello,"))
	r.settle()
	return r, toks
}

// TestOneCallPerReply: a 30-message direct conversation, one message at a
// time, costs at most 1.15 model calls per user message with a model that
// sends a plain send_message for what is new; each message is answered
// once. The earlier semantics needed two calls per message.
func TestOneCallPerReply(t *testing.T) {
	tests := []struct {
		name     string
		turn     scheduler.Turn
		answer   func(*turnRig, int, planner.Request) string
		min, max float64 // calls per user message
	}{
		{"send ends the turn", scheduler.TurnSendEnds, plainAnswer, 1, 1.15},
		{"asking for more makes two calls", scheduler.TurnSendEnds, moreAnswer, 2, 2},
		{"earlier semantics", scheduler.TurnContinue, plainAnswer, 2, 2},
		{"earlier semantics asking for more", scheduler.TurnContinue, moreAnswer, 2, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, toks := directConversation(t, tc.turn, tc.answer)
			ackedOnce(t, r.sender.contents(), toks)
			c := r.cost(len(toks))
			t.Logf("%d user messages: %d calls (%.2f per message), %.0f prompt tokens per message", c.messages, c.calls, c.callsPerMessage(), c.tokensPerMessage())
			if got := c.callsPerMessage(); got < tc.min || got > tc.max {
				t.Errorf("%.2f model calls per user message, want %.2f to %.2f", got, tc.min, tc.max)
			}
		})
	}
}

// TestBurstUnderEitherSemantics: messages arriving while the model decides
// are each answered once, under both semantics.
func TestBurstUnderEitherSemantics(t *testing.T) {
	for _, turn := range []scheduler.Turn{scheduler.TurnSendEnds, scheduler.TurnContinue} {
		t.Run(string(turn), func(t *testing.T) {
			r, toks := burstConversation(t, turn)
			if len(toks) != 6 {
				t.Fatalf("%d messages arrived, want 6", len(toks))
			}
			ackedOnce(t, r.sender.contents(), toks)
			c := r.cost(len(toks))
			t.Logf("burst of %d: %d calls (%.2f per message), %.0f prompt tokens per message", c.messages, c.calls, c.callsPerMessage(), c.tokensPerMessage())
		})
	}
}

// TestWhatEndsTheWake: under send-ends, a send that goes out ends the wake;
// anything else the model must look at gives it the next call.
func TestWhatEndsTheWake(t *testing.T) {
	send := func(ch, content string) string {
		return fmt.Sprintf(`{"action":"send_message","channelId":%q,"content":%q}`, ch, content)
	}
	tests := []struct {
		name string
		turn scheduler.Turn
		// answers are the model's answers in order; during delivers a
		// message while the model decides call n (from 1).
		answers []string
		during  map[int]bool
		fail    map[int]error
		calls   int
		sent    []string
		capped  bool
	}{
		{name: "a send ends the wake", answers: []string{send("c1", "hi")}, calls: 1, sent: []string{"c1: hi"}},
		{name: "silence ends the wake", answers: []string{send("c1", "@@SILENT@@")}, calls: 1},
		{name: "then end is the default, said out loud", answers: []string{`{"action":"send_message","parameters":{"channelId":"c1","content":"hi","then":"end"}}`},
			calls: 1, sent: []string{"c1: hi"}},
		{name: "then next asks for another call", answers: []string{`{"action":"send_message","channelId":"c1","content":"hi","then":"next"}`, `{"action":"continue"}`},
			calls: 2, sent: []string{"c1: hi"}},
		{name: "silence with then next", answers: []string{`{"action":"send_message","channelId":"c1","content":"@@SILENT@@","then":"next"}`, `{"action":"continue"}`},
			calls: 2},
		{name: "a failed send gives the next call", answers: []string{send("c1", "hi"), send("c1", "hi again")},
			fail: map[int]error{1: errors.New("platform said no")}, calls: 2, sent: []string{"c1: hi again"}},
		{name: "a held-back send gives the next call", answers: []string{send("c1", "hi"), send("c1", "hi both")},
			during: map[int]bool{1: true}, calls: 2, sent: []string{"c1: hi both"}},
		{name: "a message that arrived while deciding gives the next call", answers: []string{send("c1", "hi"), send("c1", "hi both"), send("c1", "and you")},
			during: map[int]bool{1: true, 2: true}, calls: 3, sent: []string{"c1: hi both", "c1: and you"}},
		{name: "a send elsewhere leaves this channel unanswered", answers: []string{send("c2", "psst"), send("c1", "hi")},
			calls: 2, sent: []string{"c2: psst", "c1: hi"}},
		{name: "a read gives the next call", answers: []string{`{"action":"read_unread_messages","channelId":"c1"}`, send("c1", "hi")},
			calls: 2, sent: []string{"c1: hi"}},
		{name: "list_channels gives the next call", answers: []string{`{"action":"list_channels"}`, send("c1", "hi")},
			calls: 2, sent: []string{"c1: hi"}},
		{name: "a parse error gives the next call", answers: []string{"let me think", send("c1", "hi")},
			calls: 2, sent: []string{"c1: hi"}},
		{name: "an invalid action gives the next call", answers: []string{`{"action":"send_message","channelId":"c1","content":"hi","then":"later"}`, send("c1", "hi")},
			calls: 2, sent: []string{"c1: hi"}},
		{name: "the cap still ends a wake left unanswered", answers: []string{"?", "?", "?", "?", "?"},
			calls: 5, capped: true},
		{name: "earlier semantics: a send asks for the next call", turn: scheduler.TurnContinue,
			answers: []string{send("c1", "hi"), `{"action":"continue"}`}, calls: 2, sent: []string{"c1: hi"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			turn := tc.turn
			if turn == "" {
				turn = scheduler.TurnSendEnds
			}
			r := newTurnRig(t, turn, func(r *turnRig, n int, _ planner.Request) string {
				if tc.during[n] {
					r.say("one more thing")
				}
				if n > len(tc.answers) {
					t.Errorf("call %d: the script has %d answers", n, len(tc.answers))
					return `{"action":"continue"}`
				}
				return tc.answers[n-1]
			})
			for n, err := range tc.fail {
				r.sender.fail[n] = err
			}
			r.say("hello")
			rep := r.sched.Wake(r.ctx, "c1", "message")
			if rep.Iterations != tc.calls || len(r.model.requests()) != tc.calls {
				t.Errorf("wake ran %d calls (model saw %d), want %d", rep.Iterations, len(r.model.requests()), tc.calls)
			}
			if rep.Capped != tc.capped || (tc.capped && !rep.Unanswered) {
				t.Errorf("capped %v, unanswered %v; want capped %v with messages unanswered", rep.Capped, rep.Unanswered, tc.capped)
			}
			if got := r.sender.contents(); strings.Join(got, "|") != strings.Join(tc.sent, "|") {
				t.Errorf("sent %q, want %q", got, tc.sent)
			}
		})
	}
}

// BenchmarkTurnCost reports model calls and prompt tokens per user message
// on the 30-message direct conversation and on the burst, under each turn
// semantics; the ratios between them are the saving.
func BenchmarkTurnCost(b *testing.B) {
	for _, sc := range []struct {
		name string
		run  func(testing.TB, scheduler.Turn) (*turnRig, []string)
	}{
		{"direct30", func(tb testing.TB, turn scheduler.Turn) (*turnRig, []string) {
			return directConversation(tb, turn, plainAnswer)
		}},
		{"burst6", burstConversation},
	} {
		for _, turn := range []scheduler.Turn{scheduler.TurnContinue, scheduler.TurnSendEnds} {
			b.Run(sc.name+"/"+string(turn), func(b *testing.B) {
				var c turnCost
				for i := 0; i < b.N; i++ {
					r, toks := sc.run(b, turn)
					c = r.cost(len(toks))
				}
				b.ReportMetric(c.callsPerMessage(), "calls/msg")
				b.ReportMetric(c.tokensPerMessage(), "prompt-tokens/msg")
			})
		}
	}
}
