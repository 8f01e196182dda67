package scheduler_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/internal/tokens"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/parse"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// seenModel is a scripted model that keeps every request it was given and
// whether it answered it.
type seenModel struct {
	mu       sync.Mutex
	calls    []seenCall
	answer   func(ctx context.Context, n int, req planner.Request) (string, error)
	answered chan struct{}
}

type seenCall struct {
	req      planner.Request
	answered bool
}

func (m *seenModel) Complete(ctx context.Context, req planner.Request) (planner.Response, error) {
	m.mu.Lock()
	n := len(m.calls) + 1
	m.calls = append(m.calls, seenCall{req: req})
	m.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return planner.Response{}, err
	}
	raw, err := m.answer(ctx, n, req)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return planner.Response{}, err
	}
	m.mu.Lock()
	m.calls[n-1].answered = true
	m.mu.Unlock()
	return planner.Response{Content: raw, Attempts: 1}, nil
}

// answeredStates returns the state messages (the last message) of every
// request the model answered: where new messages and read results are shown.
func (m *seenModel) answeredStates() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, c := range m.calls {
		if c.answered {
			out = append(out, c.req.Messages[len(c.req.Messages)-1].Content)
		}
	}
	return out
}

func (m *seenModel) requests() []seenCall {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]seenCall(nil), m.calls...)
}

type seenRig struct {
	t     *testing.T
	store *sqlite.Store
	sched *scheduler.Scheduler
	model *seenModel
	sent  chan state.Outgoing
}

type seenSender struct {
	mu sync.Mutex
	n  int
	ch chan state.Outgoing
}

func (s *seenSender) Send(_ context.Context, out state.Outgoing) (string, error) {
	s.mu.Lock()
	s.n++
	n := s.n
	s.mu.Unlock()
	select {
	case s.ch <- out:
	default:
	}
	return fmt.Sprintf("out-%d", n), nil
}

// newSeenRig wires the real scheduler, prompt builder, parser, handlers
// and SQLite store around a scripted model.
func newSeenRig(t *testing.T, cfg scheduler.Config, logger *zap.Logger, answer func(ctx context.Context, n int, req planner.Request) (string, error)) *seenRig {
	t.Helper()
	if logger == nil {
		logger = zaptest.NewLogger(t, zaptest.Level(zapcore.WarnLevel))
	}
	st, err := sqlite.Open(context.Background(), t.TempDir()+"/airi.db", logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	src, err := prompts.Load("", logger)
	if err != nil {
		t.Fatal(err)
	}
	r := &seenRig{t: t, store: st, model: &seenModel{answer: answer, answered: make(chan struct{}, 1)}, sent: make(chan state.Outgoing, 100)}
	reg, err := actions.NewBuiltinRegistry(actions.NewHandlers(actions.HandlerDeps{Store: st, Sender: &seenSender{ch: r.sent}, BotName: "Bot"}))
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
	r.sched, err = scheduler.New(cfg, scheduler.Deps{
		Store: st, Prompter: planner.NewBuilder(src, reg, planner.BuilderOptions{}), Model: r.model,
		Parser: parse.New(reg), Dispatcher: reg, Logger: logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *seenRig) start() {
	r.t.Helper()
	startLoops(r.t, r.sched)
}

var seenChannel = state.Channel{ID: "g1", Platform: "telegram", Group: true, Title: "flood"}

// seenText is message i's text: a unique head, then filler to size bytes.
func seenText(i, size int) string {
	s := fmt.Sprintf("flood #%05d; ", i)
	for len(s) < size {
		s += "lorem ipsum dolor sit amet "
	}
	return s[:max(size, len(fmt.Sprintf("flood #%05d;", i)))]
}

// deliver stores n messages of size bytes through the scheduler.
func (r *seenRig) deliver(from, n, size int) {
	r.t.Helper()
	for i := from; i < from+n; i++ {
		msg := state.Message{ChannelID: seenChannel.ID, PlatformID: fmt.Sprint(i), SenderName: fmt.Sprintf("user%d", i%7),
			Content: seenText(i, size), Time: time.Now().UTC()}
		if err := r.sched.Deliver(context.Background(), seenChannel, msg); err != nil {
			r.t.Fatal(err)
		}
	}
}

// ingest stores n messages straight into the store, as a previous run left them.
func (r *seenRig) ingest(n, size int) {
	r.t.Helper()
	if err := r.store.UpsertChannel(context.Background(), seenChannel); err != nil {
		r.t.Fatal(err)
	}
	for i := range n {
		msg := state.Message{ChannelID: seenChannel.ID, PlatformID: fmt.Sprint(i), SenderName: "ann",
			Content: seenText(i, size), Time: time.Now().UTC()}
		if _, _, err := r.store.Ingest(context.Background(), msg); err != nil {
			r.t.Fatal(err)
		}
	}
}

// messages returns every incoming message of the channel, read or not.
func (r *seenRig) messages() []state.Message {
	r.t.Helper()
	msgs, err := r.store.Events(context.Background(), state.TickFilter{ChannelID: seenChannel.ID})
	if err != nil {
		r.t.Fatal(err)
	}
	return msgs
}

// assertReadWasSeen checks the invariant: every message that is read
// appears in the state message of a request the model answered, in full or
// cut to the per-message cap with a marker.
func (r *seenRig) assertReadWasSeen() (read, unread int) {
	r.t.Helper()
	return r.assertReadWasSeenAfter(0)
}

// assertReadWasSeenAfter checks the messages with ids above after (those
// before were read by the test's setup).
func (r *seenRig) assertReadWasSeenAfter(after int64) (read, unread int) {
	r.t.Helper()
	states := r.model.answeredStates()
	all := strings.Join(states, "\n\x00\n")
	unseen := 0
	for _, m := range r.messages() {
		if m.ID <= after {
			continue
		}
		if !m.Read {
			unread++
			continue
		}
		read++
		full := prompts.Quote(m.Content)
		cut := prompts.Cut(m.Content, prompts.MaxMessageRunes)
		marked := strings.TrimSuffix(prompts.Quote(cut), `"`)
		if !strings.Contains(all, full) && (cut == m.Content || !strings.Contains(all, marked)) {
			if unseen < 5 {
				r.t.Errorf("message %s (%.20q) is read but no answered request showed it", m.PlatformID, m.Content)
			}
			unseen++
		}
	}
	if unseen > 0 {
		r.t.Errorf("%d of %d read messages were never shown in an answered request (%d requests answered)", unseen, read, len(states))
	}
	return read, unread
}

// reader reads while unread messages remain here, then replies once and
// ends the turn: the pattern that marked unseen messages read.
func reader(_ context.Context, n int, req planner.Request) (string, error) {
	st := req.Messages[len(req.Messages)-1].Content
	switch {
	case strings.Contains(st, "more unread here") || strings.Contains(st, "more unread in"):
		return `{"action":"read_unread_messages","channelId":"g1"}`, nil
	case strings.Contains(st, "This turn so far:") && strings.Contains(st, "sent to"):
		return `{"action":"continue"}`, nil
	case n%4 == 0:
		return `{"action":"read_unread_messages","channelId":"g1"}`, nil
	}
	return `{"action":"send_message","channelId":"g1","content":"noted"}`, nil
}

func (r *seenRig) waitIdle() {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := r.sched.WaitIdle(ctx); err != nil {
		counts, _ := r.store.UnreadCounts(context.Background())
		calls := r.model.requests()
		last := ""
		if len(calls) > 0 {
			last = calls[len(calls)-1].req.Messages[len(calls[len(calls)-1].req.Messages)-1].Content
		}
		r.t.Fatalf("never idle: %v; unread %v after %d calls; last state message:\n%.3000s", err, counts, len(calls), last)
	}
}

// TestReadMeansSeenUnderFlood floods one group through the running
// scheduler while the model keeps reading: every message ends up read, and
// every read message was shown in an answered request.
// The flood runs on the virtual clock of a synctest bubble, a twentieth
// of it each millisecond, so that wakes run between the deliveries.
func TestReadMeansSeenUnderFlood(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n, perMilli = floodSize, floodSize / 20
		// A model that keeps reading never sends, so its wakes end on the cap
		// unanswered; after two re-arms the periodic tick picks the channel up,
		// as in production.
		r := newSeenRig(t, scheduler.Config{Debounce: time.Millisecond, TickInterval: 10 * time.Millisecond, Interrupt: true, MaxIterations: 5}, nil, reader)
		r.start()
		pace := time.NewTicker(time.Millisecond)
		defer pace.Stop()
		for i := 0; i < n; i += perMilli {
			r.deliver(i, min(perMilli, n-i), 60)
			<-pace.C
		}
		r.waitIdle()
		read, unread := r.assertReadWasSeen()
		if read != n || unread != 0 {
			t.Errorf("%d read, %d unread of %d: want all read once idle", read, unread, n)
		}
		t.Logf("%d messages read over %d answered requests", read, len(r.model.answeredStates()))
	})
}

// TestReadMeansSeenAtStart: messages waiting when the bot starts, short or
// long, are each shown before they count as read.
func TestReadMeansSeenAtStart(t *testing.T) {
	tests := []struct {
		name    string
		n, size int
	}{
		{"60 waiting", 60, 40},
		{"30 long ones", 30, 500},
		{"20 of 4 KB", 20, 4096},
		{"5 of 16 KB", 5, state.MaxContentBytes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newSeenRig(t, scheduler.Config{Debounce: time.Millisecond, TickInterval: 10 * time.Millisecond}, nil, reader)
				r.ingest(tt.n, tt.size)
				r.start()
				r.waitIdle()
				read, unread := r.assertReadWasSeen()
				if read != tt.n || unread != 0 {
					t.Errorf("%d read, %d unread of %d", read, unread, tt.n)
				}
				enc := tokens.New()
				for i, c := range r.model.requests() {
					if got := enc.Request(c.req.Messages); got > planner.DefaultMaxTokens {
						t.Errorf("request %d of %d tokens, over the %d budget", i+1, got, planner.DefaultMaxTokens)
					}
				}
			})
		})
	}
}

// TestUnansweredRequestLeavesMessagesUnread: a failed or cancelled model
// call marks nothing read, neither the new messages it showed nor those of
// the read result it showed.
func TestUnansweredRequestLeavesMessagesUnread(t *testing.T) {
	errDown := errors.New("model endpoint answered 503")
	tests := []struct {
		name string
		// answer fails on the call it chooses.
		answer func(ctx context.Context, n int, req planner.Request) (string, error)
		cancel bool
		size   int
		// wantRead is how many of the 60 messages end read.
		wantRead int
	}{
		{
			name:     "first call fails",
			answer:   func(context.Context, int, planner.Request) (string, error) { return "", errDown },
			wantRead: 0,
		},
		{
			name: "call showing a read result fails",
			answer: func(_ context.Context, n int, _ planner.Request) (string, error) {
				if n == 1 {
					return `{"action":"read_unread_messages","channelId":"g1"}`, nil
				}
				return "", errDown
			},
			wantRead: 20, // the first request's new messages only
		},
		{
			name: "call showing a read result cancelled",
			answer: func(ctx context.Context, n int, _ planner.Request) (string, error) {
				if n == 1 {
					return `{"action":"read_unread_messages","channelId":"g1"}`, nil
				}
				select {
				case <-ctx.Done():
					return "", ctx.Err()
				case <-time.After(waitFor):
					return "", errors.New("the call was never cancelled")
				}
			},
			cancel:   true,
			wantRead: 20,
		},
		{
			name: "wake ends on its cap right after a read",
			answer: func(_ context.Context, n int, _ planner.Request) (string, error) {
				return `{"action":"read_unread_messages","channelId":"g1"}`, nil
			},
			// Cap 2: the first request shows the new messages that fit, the
			// second the read result of the first; the result of the
			// second read is never shown.
			size:     500,
			wantRead: -1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newSeenRig(t, scheduler.Config{MaxIterations: 2}, nil, tt.answer)
				r.ingest(60, max(tt.size, 40))
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if tt.cancel {
					go func() {
						// Cancel once the second call is in flight.
						for len(r.model.requests()) < 2 {
							select {
							case <-ctx.Done():
								return
							case <-time.After(time.Millisecond):
							}
						}
						cancel()
					}()
				}
				r.sched.Wake(ctx, seenChannel.ID, "message")
				read, _ := r.assertReadWasSeen()
				if tt.wantRead >= 0 && read != tt.wantRead {
					t.Errorf("%d messages read, want %d", read, tt.wantRead)
				}
				if tt.wantRead < 0 && (read == 0 || read >= 60) {
					t.Errorf("%d messages read: want those the two answered requests showed", read)
				}
			})
		})
	}
}

// TestContextLengthRetriesWithLessHistory: a request the model refuses as
// too long is logged and tried once more with half the history; the retry
// is answered and its messages read.
func TestContextLengthRetriesWithLessHistory(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	tooLong := fmt.Errorf("model call: %w: This model's maximum context length is 4096 tokens", planner.ErrContextLength)
	r := newSeenRig(t, scheduler.Config{MaxIterations: 1}, zap.New(core), func(_ context.Context, n int, _ planner.Request) (string, error) {
		if n == 1 {
			return "", tooLong
		}
		return `{"action":"continue"}`, nil
	})
	// A long history, then one new message.
	r.ingest(40, 1500)
	var ids []int64
	for _, m := range r.messages() {
		ids = append(ids, m.ID)
	}
	if err := r.store.MarkRead(context.Background(), ids); err != nil {
		t.Fatal(err)
	}
	setup := ids[len(ids)-1]
	r.deliver(100, 1, 20)
	rep := r.sched.Wake(context.Background(), seenChannel.ID, "message")
	if rep.ModelFailed {
		t.Fatalf("wake failed: %+v", rep)
	}
	calls := r.model.requests()
	if len(calls) != 2 {
		t.Fatalf("%d model calls, want the refused one and one retry", len(calls))
	}
	if a, b := len(calls[0].req.Messages), len(calls[1].req.Messages); b >= a {
		t.Errorf("retry has %d messages, the refused request %d: want less history", b, a)
	}
	if !strings.Contains(calls[1].req.Messages[len(calls[1].req.Messages)-1].Content, "flood #00100") {
		t.Errorf("retry lost the new message")
	}
	if logs.FilterMessageSnippet("retrying once with half the history").Len() != 1 {
		t.Errorf("no log line about the retry: %v", logs.All())
	}
	read, unread := r.assertReadWasSeenAfter(setup)
	if read != 1 || unread != 0 {
		t.Errorf("%d read, %d unread after the retry was answered", read, unread)
	}
}
