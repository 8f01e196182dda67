package scheduler_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/parse"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// waitFor bounds every wait on a condition; reaching it is a failure.
// Tests that run the loops do so in a synctest bubble, where the clock is
// virtual: debounces and delays pass as soon as every goroutine waits, and
// a wait that is never satisfied reaches this deadline at once instead of
// hanging until the test binary's timeout.
const waitFor = 10 * time.Second

// model answers from a policy and reports every call.
type model struct {
	mu     sync.Mutex
	calls  []planner.Request
	answer func(ctx context.Context, n int, req planner.Request) (string, error)
	called chan int
	// finish, when set, is the finish reason of every answer.
	finish string
}

func newModel(answer func(ctx context.Context, n int, req planner.Request) (string, error)) *model {
	return &model{answer: answer, called: make(chan int, 1000)}
}

func (m *model) Complete(ctx context.Context, req planner.Request) (planner.Response, error) {
	m.mu.Lock()
	m.calls = append(m.calls, req)
	n := len(m.calls)
	m.mu.Unlock()
	m.called <- n
	raw, err := m.answer(ctx, n, req)
	if err != nil {
		return planner.Response{}, err
	}
	return planner.Response{Content: raw, Attempts: 1, FinishReason: m.finish, Ended: m.finish != ""}, nil
}

func (m *model) requests() []planner.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]planner.Request(nil), m.calls...)
}

// stateOf returns the final (state) message of a request.
func stateOf(req planner.Request) string {
	return req.Messages[len(req.Messages)-1].Content
}

// sender records sends.
type sender struct {
	mu   sync.Mutex
	sent []state.Outgoing
	ch   chan state.Outgoing
}

func newSender() *sender { return &sender{ch: make(chan state.Outgoing, 1000)} }

func (s *sender) Send(_ context.Context, out state.Outgoing) (string, error) {
	s.mu.Lock()
	s.sent = append(s.sent, out)
	n := len(s.sent)
	s.mu.Unlock()
	s.ch <- out
	return fmt.Sprintf("sent-%d", n), nil
}

// perChannel counts the messages sent to each channel.
func (s *sender) perChannel() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	got := map[string]int{}
	for _, out := range s.sent {
		got[out.ChannelID]++
	}
	return got
}

type harness struct {
	t      *testing.T
	store  *sqlite.Store
	sched  *scheduler.Scheduler
	model  *model
	sender *sender
	ticks  chan state.Tick
	fatal  chan error
	n      int
	// typing, when set before start, is the typing indicator.
	typing func(ctx context.Context, channelID string)
	// unwritable, when set, is why the store refuses writes.
	unwritable error
}

// Writable implements scheduler.Storage for the harness's store.
func (h *harness) Writable(context.Context) error { return h.unwritable }

func newHarness(t *testing.T, cfg scheduler.Config, m *model) *harness {
	t.Helper()
	return newHarnessLog(t, cfg, m, zaptest.NewLogger(t))
}

// newHarnessLog is newHarness with the given logger.
func newHarnessLog(t *testing.T, cfg scheduler.Config, m *model, log *zap.Logger) *harness {
	t.Helper()
	return newHarnessWrap(t, cfg, m, log, nil)
}

// newHarnessWrap is newHarnessLog whose scheduler uses the store through
// wrap (when not nil), so that a test can watch what it asks of it.
func newHarnessWrap(t *testing.T, cfg scheduler.Config, m *model, log *zap.Logger, wrap func(*sqlite.Store) scheduler.Store) *harness {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, t.TempDir()+"/airi.db", log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	src, err := prompts.Load("", log)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, store: st, model: m, sender: newSender(), ticks: make(chan state.Tick, 1000), fatal: make(chan error, 10)}
	reg, err := actions.NewBuiltinRegistry(actions.NewHandlers(actions.HandlerDeps{Store: st, Sender: h.sender, BotName: "Bot"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ContinueDelay == 0 {
		cfg.NoContinueDelay = true
	}
	if cfg.TickInterval == 0 {
		cfg.NoPeriodic = true
	}
	cfg.BotName = "Bot"
	var store scheduler.Store = st
	if wrap != nil {
		store = wrap(st)
	}
	h.sched, err = scheduler.New(cfg, scheduler.Deps{
		Store: store, Prompter: planner.NewBuilder(src, reg, planner.BuilderOptions{}), Model: m,
		Parser: parse.New(reg), Dispatcher: reg, Logger: log,
		OnTick:   func(tk state.Tick) { h.ticks <- tk },
		Controls: st,
		Storage:  h,
		OnFatal:  func(err error) { h.fatal <- err },
		Typing: func(ctx context.Context, id string) {
			if h.typing != nil {
				h.typing(ctx, id)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// start runs the loops. A test that starts them runs inside
// synctest.Test, so that its debounces and delays pass on the bubble's
// virtual clock; newHarness is then called inside the bubble too, as the
// store's and the scheduler's goroutines and channels must belong to it.
func (h *harness) start() {
	h.t.Helper()
	startLoops(h.t, h.sched)
}

// startLoops starts the scheduler's loops and closes them, within waitFor,
// when the test ends.
func startLoops(t *testing.T, s *scheduler.Scheduler) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cctx, done := context.WithTimeout(context.Background(), waitFor)
		defer done()
		if err := s.Close(cctx); err != nil {
			t.Error(err)
		}
	})
}

// say delivers a user message to channel "c1".
func (h *harness) say(text string) {
	h.t.Helper()
	h.n++
	ch := state.Channel{ID: "c1", Platform: "console", Title: "test"}
	msg := state.Message{ChannelID: "c1", PlatformID: fmt.Sprintf("m%d", h.n), SenderName: "ann", Content: text, Time: time.Now().UTC()}
	if err := h.sched.Deliver(context.Background(), ch, msg); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) waitSent(n int) []state.Outgoing {
	h.t.Helper()
	deadline := time.After(waitFor)
	for {
		h.sender.mu.Lock()
		got := len(h.sender.sent)
		sent := append([]state.Outgoing(nil), h.sender.sent...)
		h.sender.mu.Unlock()
		if got >= n {
			return sent
		}
		select {
		case <-h.sender.ch:
		case <-deadline:
			h.t.Fatalf("waited for %d sends, got %d", n, got)
		}
	}
}

// waitTick returns the first recorded tick that ok accepts, skipping the
// ticks before it.
func (h *harness) waitTick(what string, ok func(state.Tick) bool) state.Tick {
	h.t.Helper()
	deadline := time.After(waitFor)
	for {
		select {
		case tk := <-h.ticks:
			if ok(tk) {
				return tk
			}
		case <-deadline:
			h.t.Fatalf("waited for a tick that %s, got none", what)
		}
	}
}

// await receives from ch within waitFor; what names the awaited event.
func await[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitFor):
		t.Fatalf("waited for %s", what)
		var zero T
		return zero
	}
}

func (h *harness) waitIdle() {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := h.sched.WaitIdle(ctx); err != nil {
		h.t.Fatalf("never idle: %v", err)
	}
}

// echo replies to the newest incoming message, then continues.
func echo(_ context.Context, _ int, req planner.Request) (string, error) {
	st := stateOf(req)
	i := strings.LastIndex(st, "ping")
	if i < 0 {
		return `{"action":"continue"}`, nil
	}
	word := st[i : i+len("ping")+1]
	return fmt.Sprintf(`{"action":"send_message","channelId":"c1","content":"pong %s"}`, word[len(word)-1:]), nil
}

func lastAction(raw string) string {
	var a struct {
		Action string `json:"action"`
	}
	_ = json.Unmarshal([]byte(raw), &a)
	return a.Action
}

func TestBurstIsReadTogether(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var once sync.Once
		m := newModel(func(ctx context.Context, n int, req planner.Request) (string, error) {
			sent := false
			once.Do(func() { sent = true })
			if sent {
				return `{"action":"send_message","channelId":"c1","content":"hello both"}`, nil
			}
			return `{"action":"continue"}`, nil
		})
		h := newHarness(t, scheduler.Config{Debounce: 100 * time.Millisecond}, m)
		h.start()
		h.say("first ping1")
		h.say("second ping2")
		h.say("third ping3")
		h.waitSent(1)
		h.waitIdle()
		reqs := m.requests()
		first := stateOf(reqs[0])
		for _, s := range []string{"first ping1", "second ping2", "third ping3"} {
			if !strings.Contains(first, s) {
				t.Errorf("first request does not show %q:\n%s", s, first)
			}
		}
		if len(reqs) != 1 {
			t.Errorf("model called %d times, want 1 (the send ends the turn)", len(reqs))
		}
	})
}

func TestSendAbortedByNewUnreadThenAnswered(t *testing.T) {
	h := (*harness)(nil)
	m := newModel(func(ctx context.Context, n int, req planner.Request) (string, error) {
		if n == 1 {
			// A message arrives while the model decides.
			h.say("late ping9")
		}
		if n <= 2 {
			return `{"action":"send_message","channelId":"c1","content":"reply"}`, nil
		}
		return `{"action":"continue"}`, nil
	})
	h = newHarness(t, scheduler.Config{Interrupt: false}, m)
	h.say("early ping1")
	rep := h.sched.Wake(context.Background(), "c1", "message")
	if rep.Iterations < 2 {
		t.Fatalf("wake ran %d iterations: %+v", rep.Iterations, rep)
	}
	reqs := m.requests()
	if !strings.Contains(stateOf(reqs[1]), "late ping9") {
		t.Errorf("second request does not show the late message:\n%s", stateOf(reqs[1]))
	}
	var first state.Tick
	select {
	case first = <-h.ticks:
	default:
		t.Fatal("no tick recorded")
	}
	if !strings.Contains(first.Result, "not sent") {
		t.Errorf("first send was not aborted: %q", first.Result)
	}
	if len(h.sender.sent) != 1 {
		t.Errorf("sent %d messages, want 1 (the abort is once per wake)", len(h.sender.sent))
	}
}

func TestInterruptReplansWithNewMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := (*harness)(nil)
		m := newModel(func(ctx context.Context, n int, req planner.Request) (string, error) {
			switch n {
			case 1:
				h.say("second ping2")
				select {
				case <-ctx.Done(): // the new message cancels this call
				case <-time.After(waitFor):
					return "", errors.New("the new message did not cancel the call")
				}
				close(release)
				return "", ctx.Err()
			case 2:
				return `{"action":"send_message","channelId":"c1","content":"both seen"}`, nil
			}
			return `{"action":"continue"}`, nil
		})
		h = newHarness(t, scheduler.Config{Interrupt: true}, m)
		h.say("first ping1")
		rep := h.sched.Wake(context.Background(), "c1", "message")
		select {
		case <-release:
		default:
			t.Fatal("the in-flight call was not cancelled")
		}
		reqs := m.requests()
		if len(reqs) < 2 {
			t.Fatalf("no re-plan: %d calls, report %+v", len(reqs), rep)
		}
		second := stateOf(reqs[1])
		if !strings.Contains(second, "first ping1") || !strings.Contains(second, "second ping2") {
			t.Errorf("re-planned request does not deliver both messages:\n%s", second)
		}
		if len(h.sender.sent) != 1 {
			t.Errorf("sent %d, want 1", len(h.sender.sent))
		}
	})
}

func TestCapRearmsUnansweredWake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newModel(func(ctx context.Context, n int, req planner.Request) (string, error) {
			if n <= 2 {
				return `{"action":"list_channels"}`, nil
			}
			if n == 3 {
				return `{"action":"send_message","channelId":"c1","content":"finally"}`, nil
			}
			return `{"action":"continue"}`, nil
		})
		h := newHarness(t, scheduler.Config{MaxIterations: 2, Debounce: 10 * time.Millisecond}, m)
		h.start()
		h.say("hello ping1")
		h.waitSent(1)
		h.waitIdle()
		var triggers []string
		for len(h.ticks) > 0 {
			triggers = append(triggers, (<-h.ticks).Trigger)
		}
		if len(triggers) < 3 || triggers[2] != "rearm" {
			t.Errorf("triggers = %v, want the third tick to come from a re-arm", triggers)
		}
	})
}

func TestSleepWokenEarlyByMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newModel(func(ctx context.Context, n int, req planner.Request) (string, error) {
			if n == 1 {
				return `{"action":"sleep","duration":600000}`, nil
			}
			if strings.Contains(stateOf(req), "wake ping2") && !strings.Contains(stateOf(req), "sent to") {
				return `{"action":"send_message","channelId":"c1","content":"awake"}`, nil
			}
			return `{"action":"continue"}`, nil
		})
		h := newHarness(t, scheduler.Config{Debounce: 10 * time.Millisecond}, m)
		h.start()
		h.say("sleepy ping1")
		// The sleep is recorded before the next message arrives.
		h.waitTick("records a sleep", func(tk state.Tick) bool { return lastAction(string(tk.Action)) == "sleep" })
		h.say("wake ping2")
		sent := h.waitSent(1)
		if sent[0].Content != "awake" {
			t.Errorf("sent %q", sent[0].Content)
		}
	})
}

func TestPeriodicTickSkipsIdleChannels(t *testing.T) {
	m := newModel(echo)
	h := newHarness(t, scheduler.Config{}, m)
	// A channel with nothing unread costs no model call.
	if err := h.store.UpsertChannel(context.Background(), state.Channel{ID: "c1", Platform: "console"}); err != nil {
		t.Fatal(err)
	}
	rep := h.sched.Wake(context.Background(), "c1", "periodic")
	if !rep.Skipped || len(m.requests()) != 0 {
		t.Fatalf("periodic wake of an idle channel: %+v, %d calls", rep, len(m.requests()))
	}
	h.say("hello ping1")
	rep = h.sched.Wake(context.Background(), "c1", "periodic")
	if rep.Skipped || len(m.requests()) == 0 {
		t.Fatalf("periodic wake with unread did nothing: %+v", rep)
	}
}

func TestParseErrorIsShownNextTick(t *testing.T) {
	m := newModel(func(ctx context.Context, n int, req planner.Request) (string, error) {
		if n == 1 {
			return "I think I will say hi.", nil
		}
		return `{"action":"continue"}`, nil
	})
	h := newHarness(t, scheduler.Config{}, m)
	h.say("hi")
	rep := h.sched.Wake(context.Background(), "c1", "message")
	if rep.Iterations != 2 {
		t.Fatalf("iterations = %d, want 2", rep.Iterations)
	}
	second := stateOf(m.requests()[1])
	if !strings.Contains(second, "not a valid action") {
		t.Errorf("the parse error is not shown to the model:\n%s", second)
	}
	ticks, err := h.store.Ticks(context.Background(), state.TickFilter{})
	if err != nil || len(ticks) != 2 {
		t.Fatalf("ticks %d, %v", len(ticks), err)
	}
	found := false
	for _, sec := range ticks[0].Sections {
		if sec.Name == "persona" && sec.Message == 0 && sec.End > sec.Start {
			found = strings.Contains(ticks[0].Request[0].Content[sec.Start:sec.End], "Bot")
		}
	}
	if !found {
		t.Errorf("the tick does not locate its persona section: %+v", ticks[0].Sections)
	}
}

func TestPermanentModelErrorIsFatal(t *testing.T) {
	m := newModel(func(ctx context.Context, n int, req planner.Request) (string, error) {
		return "", fmt.Errorf("status 401: %w", planner.ErrPermanent)
	})
	h := newHarness(t, scheduler.Config{}, m)
	h.say("hi")
	rep := h.sched.Wake(context.Background(), "c1", "message")
	if !rep.Fatal || !rep.ModelFailed {
		t.Fatalf("report = %+v", rep)
	}
	select {
	case err := <-h.fatal:
		if !errors.Is(err, planner.ErrPermanent) {
			t.Errorf("OnFatal got %v", err)
		}
	default:
		t.Error("OnFatal was not told")
	}
	n, err := h.store.UnreadCounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n["c1"] != 1 {
		t.Errorf("a message the model never saw was marked read: unread = %v", n)
	}
}

func TestShutdownCancelsInflightTick(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started := make(chan struct{})
		m := newModel(func(ctx context.Context, n int, req planner.Request) (string, error) {
			close(started)
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(waitFor):
				return "", errors.New("shutdown did not cancel the call")
			}
		})
		h := newHarness(t, scheduler.Config{Debounce: time.Millisecond}, m)
		ctx, cancel := context.WithCancel(context.Background())
		if err := h.sched.Start(ctx); err != nil {
			t.Fatal(err)
		}
		h.say("hello")
		await(t, started, "the model call")
		cancel()
		cctx, done := context.WithTimeout(context.Background(), waitFor)
		defer done()
		if err := h.sched.Close(cctx); err != nil {
			t.Fatal(err)
		}
		if err := h.sched.Deliver(context.Background(), state.Channel{ID: "c1", Platform: "console"},
			state.Message{ChannelID: "c1", PlatformID: "late", SenderName: "ann", Content: "x", Time: time.Now()}); err == nil {
			t.Error("deliver after close was accepted")
		}
	})
}

func TestRestartResumesUnread(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newModel(echo)
		h := newHarness(t, scheduler.Config{Debounce: time.Millisecond}, m)
		// Stored before the scheduler runs, as after a crash.
		h.say("left over ping7")
		h.start()
		sent := h.waitSent(1)
		if sent[0].Content != "pong 7" {
			t.Errorf("sent %q", sent[0].Content)
		}
		h.waitIdle()
	})
}

func TestDeliverRejectsBadInput(t *testing.T) {
	h := newHarness(t, scheduler.Config{}, newModel(echo))
	err := h.sched.Deliver(context.Background(), state.Channel{ID: "c1", Platform: "console"}, state.Message{Content: "x"})
	if err == nil || !strings.Contains(err.Error(), "zero time") {
		t.Errorf("err = %v", err)
	}
}

// A message that arrives during a wake and is delivered by its last
// allowed tick, whose answer then fails to parse, is still answered: the
// re-arm is not displaced by the wake that message scheduled.
func TestRearmAfterLateMessageOnLastTick(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var h *harness
		m := newModel(func(ctx context.Context, n int, req planner.Request) (string, error) {
			switch n {
			case 1:
				h.say("late ping2")
				return `{"action":"send_message","channelId":"c1","content":"pong 1"}`, nil
			case 2:
				return "Sure, let me think about that for a while.", nil
			case 3:
				return `{"action":"send_message","channelId":"c1","content":"pong 2"}`, nil
			}
			return `{"action":"continue"}`, nil
		})
		h = newHarness(t, scheduler.Config{MaxIterations: 2, Debounce: time.Millisecond}, m)
		h.start()
		h.say("early ping1")
		// The first send is aborted by the late message.
		sent := h.waitSent(1)
		if sent[0].Content != "pong 2" {
			t.Errorf("sent %+v", sent)
		}
		h.waitIdle()
	})
}

// Messages shown by a tick whose answer did not parse are shown as new
// again on the next tick, beside what arrived meanwhile, and not in the
// history of that request.
func TestUnparsedTickShowsItsMessagesAgain(t *testing.T) {
	var h *harness
	m := newModel(func(ctx context.Context, n int, req planner.Request) (string, error) {
		switch n {
		case 1:
			h.say("second ping2")
			return "Let me think about what to say.", nil
		case 2:
			return `{"action":"send_message","channelId":"c1","content":"pong 1 2","then":"next"}`, nil
		}
		return `{"action":"continue"}`, nil
	})
	h = newHarness(t, scheduler.Config{}, m)
	h.say("first ping1")
	h.sched.Wake(context.Background(), "c1", "message")
	reqs := m.requests()
	if len(reqs) < 3 {
		t.Fatalf("%d calls", len(reqs))
	}
	second := stateOf(reqs[1])
	if !strings.Contains(second, "first ping1") || !strings.Contains(second, "second ping2") {
		t.Errorf("second state does not show both messages as new:\n%s", second)
	}
	for _, msg := range reqs[1].Messages[1 : len(reqs[1].Messages)-1] {
		if strings.Contains(msg.Content, "first ping1") {
			t.Errorf("a carried message is also in the history: %q", msg.Content)
		}
	}
	third := stateOf(reqs[2])
	if strings.Contains(third, "first ping1") {
		t.Errorf("after a valid answer the message is still shown as new:\n%s", third)
	}
}

// TestUnreadBeyondDisplayCapGetsAnotherWake checks that a wake which
// leaves messages unread (more than one request shows) is followed by
// another, until every message was shown and answered.
func TestUnreadBeyondDisplayCapGetsAnotherWake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newModel(func(ctx context.Context, n int, req planner.Request) (string, error) {
			return fmt.Sprintf(`{"action":"send_message","channelId":"c1","content":"answer %d"}`, n), nil
		})
		h := newHarness(t, scheduler.Config{Debounce: 100 * time.Millisecond, DisplayCap: 2}, m)
		for i := range 5 {
			h.say(fmt.Sprintf("question %d", i))
		}
		h.start()
		h.waitSent(3)
		h.waitIdle()
		counts, err := h.store.UnreadCounts(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if counts["c1"] != 0 {
			t.Errorf("%d messages left unread", counts["c1"])
		}
		reqs := m.requests()
		if len(reqs) != 3 {
			t.Errorf("model called %d times, want 3 (two, two and one message shown)", len(reqs))
		}
		for i, s := range []string{"question 0", "question 2", "question 4"} {
			if i < len(reqs) && !strings.Contains(stateOf(reqs[i]), s) {
				t.Errorf("request %d does not show %q:\n%s", i+1, s, stateOf(reqs[i]))
			}
		}
	})
}

// TestDeliverNewChannelOneWrite: the first message of a chat records the
// chat and the message in one write transaction, and later messages that
// change nothing about the chat write the message alone.
func TestDeliverNewChannelOneWrite(t *testing.T) {
	h := newHarness(t, scheduler.Config{}, newModel(echo))
	ctx := context.Background()
	ch := state.Channel{ID: "c9", Platform: "console", Title: "Harbour log"}
	// The bot's own messages wake nothing, so no tick writes meanwhile.
	own := func(pid string) state.Message {
		return state.Message{PlatformID: pid, SenderName: "Bot", Self: true, Content: "noted " + pid, Time: time.Unix(100, 0)}
	}
	w0 := h.store.Work()
	if err := h.sched.Deliver(ctx, ch, own("o1")); err != nil {
		t.Fatal(err)
	}
	if w := h.store.Work(); w.Writes-w0.Writes != 1 {
		t.Errorf("the first message of a chat took %d write transactions, want 1", w.Writes-w0.Writes)
	}
	got, err := h.store.Channel(ctx, "c9")
	if err != nil || got.Title != "Harbour log" {
		t.Fatalf("channel after its first message: %+v, %v", got, err)
	}
	w0 = h.store.Work()
	if err := h.sched.Deliver(ctx, ch, own("o2")); err != nil {
		t.Fatal(err)
	}
	if w := h.store.Work(); w.Writes-w0.Writes != 1 {
		t.Errorf("a message of a known chat took %d write transactions, want 1", w.Writes-w0.Writes)
	}
	if hist, _, err := h.store.History(ctx, "c9", 0); err != nil || len(hist) != 2 {
		t.Errorf("history: %d messages, %v; want 2", len(hist), err)
	}
}
