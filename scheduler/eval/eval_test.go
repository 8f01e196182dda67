package eval_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/internal/tokens"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/scheduler/eval"
	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/state"
)

// scripted answers each call with the next answer of its script.
type scripted struct {
	mu      sync.Mutex
	answers []string
	n       int
}

func (m *scripted) Complete(_ context.Context, _ planner.Request) (planner.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a := `{"action":"continue"}`
	if m.n < len(m.answers) {
		a = m.answers[m.n]
	}
	m.n++
	return planner.Response{Content: a, Latency: 2 * time.Second, Usage: state.Usage{PromptTokens: 100, CompletionTokens: 10}, Attempts: 1}, nil
}

// opener opens, for each run, the bot as airi eval does
// (runtime.EvalOpener): the default settings with a one-second debounce,
// under the session's header, on a fresh SQLite store, with model.
func opener(model planner.Model) eval.Opener {
	cfg := runtime.Defaults()
	cfg.Debounce = time.Second
	return runtime.EvalOpener(cfg, model, zap.NewNop())
}

// TestPlayOnVirtualClock plays an hour of chat: the debounce, a five
// minute sleep and the hour between two messages pass on the virtual
// clock (the test would otherwise time out), periodic ticks with nothing
// unread cost no call, and each message is judged by the wake that showed it.
func TestPlayOnVirtualClock(t *testing.T) {
	t0 := time.Date(2026, 4, 2, 21, 0, 0, 0, time.UTC)
	s := &replay.Session{
		Header: replay.Header{Channel: state.Channel{ID: "c", Platform: "console"}, Platform: "console", Turn: "send-ends"},
		Items: []replay.Item{
			{Event: &replay.Event{Time: t0, Sender: "ana", Content: "anyone?", Expect: &replay.Expect{Reply: replay.ReplyNo}}},
			{Event: &replay.Event{Time: t0.Add(time.Hour + 10*time.Second), Sender: "ana", Content: "Juni, tea?", Expect: &replay.Expect{Reply: replay.ReplyYes, Contains: "strong"}}},
		},
	}
	model := &scripted{answers: []string{
		`{"action":"sleep","duration":300000}`,
		`{"action":"continue"}`,
		`{"action":"send_message","channelId":"c","content":"strong, no sugar"}`,
	}}
	run, err := eval.Play(context.Background(), s, opener(model), eval.Options{TickInterval: time.Minute, Tail: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		trigger string
		now     time.Time
	}{
		// The bot's attention policy decides every message of a direct
		// chat "direct".
		{"direct", t0.Add(time.Second)},
		// The sleep starts when the call returns: 2s of latency later.
		{"sleep", t0.Add(3*time.Second + 5*time.Minute)},
		{"direct", t0.Add(time.Hour + 11*time.Second)},
	}
	if len(run.Ticks) != len(want) {
		t.Fatalf("%d ticks, want %d: %+v", len(run.Ticks), len(want), run.Ticks)
	}
	for i, w := range want {
		if got := run.Ticks[i]; got.Trigger != w.trigger || !got.Now.Equal(w.now) {
			t.Errorf("tick %d: %s at %v, want %s at %v", i+1, got.Trigger, got.Now, w.trigger, w.now)
		}
	}
	if run.Events[0].Wake != run.Ticks[0].Wake || len(run.Events[0].Sent) != 0 {
		t.Errorf("the first message should be shown by the first wake, which sent nothing: %+v", run.Events[0])
	}
	if run.Events[1].Wake != run.Ticks[2].Wake || len(run.Events[1].Sent) != 1 {
		t.Errorf("the second message should be answered by the last wake: %+v", run.Events[1])
	}
	c := eval.Count(run, tokens.New())
	v := c.Values(eval.Prices{})
	checks := map[string]float64{
		eval.MCallsPerMessage: 1.5, eval.MSpeakPrecision: 1, eval.MSpeakRecall: 1, eval.MSpeakF1: 1,
		eval.MContainsHits: 1, eval.MParseStrict: 1, eval.MTokensPerCall: 110, eval.MLatencyP50: 2000,
	}
	for k, w := range checks {
		if math.Abs(v[k]-w) > 1e-9 {
			t.Errorf("%s = %v, want %v", k, v[k], w)
		}
	}
}

func TestParseOutcome(t *testing.T) {
	tests := []struct {
		name string
		tick state.Tick
		want string
	}{
		{"clean object", state.Tick{Raw: ` {"action":"continue"} `}, eval.ParseStrict},
		{"think block then object", state.Tick{Raw: "<think>hm</think>\n{\"action\":\"continue\"}"}, eval.ParseStrict},
		{"fenced", state.Tick{Raw: "```json\n{\"action\":\"continue\"}\n```"}, eval.ParseRepaired},
		{"with a note", state.Tick{Raw: `{"action":"continue","x":1}`, Notes: []string{`unknown key "x" dropped`}}, eval.ParseRepaired},
		{"refused", state.Tick{Raw: "no idea", ParseError: "no action found"}, eval.ParseRefused},
		{"failed call", state.Tick{ModelError: "model call: 500"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := eval.ParseOutcome(tc.tick); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestValues(t *testing.T) {
	in, out, cached := 1.0, 4.0, 0.5
	tests := []struct {
		name   string
		counts eval.Counts
		prices eval.Prices
		want   map[string]float64
		absent []string
	}{
		{
			name:   "speaking",
			counts: eval.Counts{TP: 3, FP: 1, FN: 3, TN: 5},
			want:   map[string]float64{eval.MSpeakPrecision: 0.75, eval.MSpeakRecall: 0.5, eval.MSpeakF1: 0.6, eval.MSpeakLabelled: 12},
		},
		{
			name:   "never spoke",
			counts: eval.Counts{FN: 2, TN: 1},
			want:   map[string]float64{eval.MSpeakRecall: 0},
			absent: []string{eval.MSpeakPrecision, eval.MSpeakF1},
		},
		{
			name:   "money and latency",
			counts: eval.Counts{Messages: 2, Calls: 4, Strict: 4, PromptTokens: 4_000_000, CachedTokens: 2_000_000, CachedCalls: 4, CompletionTokens: 1_000_000, LatenciesMS: []int64{400, 100, 300, 200}},
			prices: eval.Prices{In: &in, Out: &out, Cached: &cached},
			want: map[string]float64{eval.MCost: 2 + 1 + 4, eval.MCostPerMessage: 3.5, eval.MCallsPerMessage: 2,
				eval.MTokensPerCall: 1_250_000, eval.MCachedPerCall: 500_000, eval.MLatencyP50: 200, eval.MLatencyP95: 400},
		},
		{
			name:   "nothing cached reported",
			counts: eval.Counts{Calls: 1, Strict: 1, PromptTokens: 10},
			absent: []string{eval.MCachedPerCall, eval.MCost},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.counts.Values(tc.prices)
			for k, w := range tc.want {
				if got, ok := v[k]; !ok || math.Abs(got-w) > 1e-9 {
					t.Errorf("%s = %v (%v), want %v", k, got, ok, w)
				}
			}
			for _, k := range tc.absent {
				if _, ok := v[k]; ok {
					t.Errorf("%s = %v, want it absent", k, v[k])
				}
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	s := eval.Summarize([]map[string]float64{{"a": 1, "b": 2}, {"a": 3}})
	if a := s["a"]; a.Mean != 2 || a.Min != 1 || a.Max != 3 || a.Runs != 2 {
		t.Errorf("a = %+v, want mean 2 over 1..3 in 2 runs", a)
	}
	if b := s["b"]; b.Mean != 2 || b.Runs != 1 {
		t.Errorf("b = %+v, want mean 2 in the one run defining it", b)
	}
	b, err := json.Marshal(s)
	if err != nil || len(b) == 0 {
		t.Fatal(fmt.Errorf("summary does not encode: %w", err))
	}
}

// capturing answers like scripted and keeps each request's state message.
type capturing struct {
	scripted
	states []string
}

func (m *capturing) Complete(ctx context.Context, req planner.Request) (planner.Response, error) {
	m.mu.Lock()
	m.states = append(m.states, req.Messages[len(req.Messages)-1].Content)
	m.mu.Unlock()
	return m.scripted.Complete(ctx, req)
}

// TestPlayDeliversReactions: a reaction line of the session reaches the
// run in time, on the run's message that took the recorded send's id; it
// shows in the next request and wakes nothing by itself.
func TestPlayDeliversReactions(t *testing.T) {
	t0 := time.Date(2026, 4, 2, 21, 0, 0, 0, time.UTC)
	effects, _ := json.Marshal([]map[string]string{{"kind": "send", "channelId": "c", "content": "strong", "messageId": "m-77"}})
	tick := &replay.Tick{Type: replay.TypeTick, Tick: state.Tick{Now: t0.Add(time.Second), Trigger: "direct", Effects: effects}}
	s := &replay.Session{
		Header: replay.Header{Channel: state.Channel{ID: "c", Platform: "console"}, Platform: "console", Turn: "send-ends"},
		Items: []replay.Item{
			{Event: &replay.Event{Time: t0, SenderID: "u1", Sender: "ana", Content: "Juni, tea?"}},
			{Tick: tick},
			{Event: &replay.Event{Time: t0.Add(time.Minute), PlatformID: "m-77", SenderID: "u1", Sender: "ana", Reaction: "👍"}},
			{Event: &replay.Event{Time: t0.Add(10 * time.Minute), SenderID: "u1", Sender: "ana", Content: "so?"}},
		},
	}
	model := &capturing{scripted: scripted{answers: []string{`{"action":"send_message","channelId":"c","content":"strong, no sugar"}`}}}
	run, err := eval.Play(context.Background(), s, opener(model), eval.Options{Tail: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Ticks) != 2 {
		t.Fatalf("%d calls, want one per message (the reaction wakes nothing): %+v", len(run.Ticks), run.Ticks)
	}
	if len(run.Events) != 2 {
		t.Errorf("%d events scored, want the two messages", len(run.Events))
	}
	if want := "ana reacted 👍 to your message m-77"; !strings.Contains(model.states[1], want) {
		t.Errorf("the request after the reaction lacks %q:\n%s", want, model.states[1])
	}
	if strings.Contains(model.states[0], "reacted") {
		t.Errorf("the first request shows a reaction made later:\n%s", model.states[0])
	}
}
