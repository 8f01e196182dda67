package runtime

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// scriptModel answers from a list, then continue, and keeps each request.
type scriptModel struct {
	mu      sync.Mutex
	answers []string
	reqs    []planner.Request
}

func (m *scriptModel) Complete(_ context.Context, req planner.Request) (planner.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, req)
	if len(m.answers) == 0 {
		return planner.Response{Content: `{"action":"continue"}`}, nil
	}
	a := m.answers[0]
	m.answers = m.answers[1:]
	return planner.Response{Content: a}, nil
}

type vclock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *vclock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *vclock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// reminderBot builds a bot on the SQLite file path with the clock, the
// model and the console-like sender.
func reminderBot(t *testing.T, path string, clk *vclock, model planner.Model, out *fakeSender) *Bot {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	st.Now = clk.Now
	b, err := New(Config{MaxIterations: 3, ScheduleInterval: -1}, Deps{Store: st, Model: model,
		Adapters: []Adapter{{Sender: out}}, Now: clk.Now, Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ask(t *testing.T, b *Bot, clk *vclock, text string) {
	t.Helper()
	ctx := context.Background()
	ch := state.Channel{ID: "c", Platform: "console", Title: "Ada"}
	msg := state.Message{ChannelID: "c", PlatformID: "m-" + text, SenderID: "ada", SenderName: "Ada", Content: text, Time: clk.Now()}
	if _, _, err := b.Store().IngestIn(ctx, ch, msg); err != nil {
		t.Fatal(err)
	}
	b.Scheduler().Wake(ctx, "c", scheduler.TriggerDirect)
}

// The model schedules a reminder 8 s ahead; the process dies 4 s later
// and a new one starts at once on the same database: the content arrives
// once, at its time, with no model call.
func TestReminderAcrossRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "airi.db")
	clk := &vclock{t: time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)}
	start := clk.Now()
	model := &scriptModel{answers: []string{`{"action":"schedule","channelId":"c","content":"call the vet","after":"8s"}`, `{"action":"continue"}`}}
	out := &fakeSender{name: "console"}
	b := reminderBot(t, path, clk, model, out)
	ask(t, b, clk, "remind me in 8 seconds to call the vet")
	if len(model.reqs) != 2 || !strings.Contains(model.reqs[1].Messages[len(model.reqs[1].Messages)-1].Content, "reminder 1 set for") {
		t.Fatalf("the model did not see the reminder's id: %d requests", len(model.reqs))
	}
	clk.Add(4 * time.Second)
	if _, err := b.Reminders().Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Killed: nothing of the bot runs down; only the store's lock goes.
	_ = b.Store().Close()
	calls := len(model.reqs)
	b2 := reminderBot(t, path, clk, model, out)
	defer b2.Close(context.Background())
	var at []time.Duration
	for i := 0; i < 12; i++ {
		clk.Add(time.Second)
		before := len(out.sent)
		if _, err := b2.Reminders().Step(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(out.sent) > before {
			at = append(at, clk.Now().Sub(start))
		}
	}
	if len(out.sent) != 1 || out.sent[0].Content != "call the vet" || len(at) != 1 || at[0] != 8*time.Second {
		t.Fatalf("sent %+v at %v, want the content once at 8s", out.sent, at)
	}
	if len(model.reqs) != calls {
		t.Errorf("delivery called the model %d times", len(model.reqs)-calls)
	}
	if n := b2.ReminderCounts().Delivered.Load(); n != 1 {
		t.Errorf("delivered count = %d", n)
	}
}

// A composed reminder wakes its chat with trigger scheduled and the
// reminder among the new messages of the state.
func TestComposedReminderWakesTheChat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "airi.db")
	clk := &vclock{t: time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)}
	model := &scriptModel{answers: []string{
		`{"action":"schedule","channelId":"c","content":"ask Ada how the exam went","after":"1h","compose":true}`,
		`{"action":"continue"}`,
		`{"action":"send_message","channelId":"c","content":"so, how did the exam go?"}`,
	}}
	out := &fakeSender{name: "console"}
	var mu sync.Mutex
	var ticks []state.Tick
	st, err := sqlite.Open(context.Background(), path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	st.Now = clk.Now
	b, err := New(Config{MaxIterations: 3, ScheduleInterval: -1}, Deps{Store: st, Model: model,
		Adapters: []Adapter{{Sender: out}}, Now: clk.Now, Logger: zaptest.NewLogger(t),
		OnTick: func(tk state.Tick) { mu.Lock(); ticks = append(ticks, tk); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	ask(t, b, clk, "ask me about the exam in an hour")
	clk.Add(time.Hour)
	if _, err := b.Reminders().Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	id, _, trig, ok := b.Scheduler().NextDue()
	if !ok || id != "c" || trig != string(scheduler.TriggerScheduled) {
		t.Fatalf("next due = %q %q %v, want a scheduled wake of c", id, trig, ok)
	}
	b.Scheduler().RunDue(context.Background(), "c")
	last := model.reqs[2]
	if s := last.Messages[len(last.Messages)-1].Content; !strings.Contains(s, "ask Ada how the exam went") || !strings.Contains(s, "is due now") {
		t.Fatalf("state of the scheduled wake does not show the reminder:\n%s", s)
	}
	if len(out.sent) != 1 || out.sent[0].Content != "so, how did the exam go?" {
		t.Fatalf("sent %+v", out.sent)
	}
	mu.Lock()
	defer mu.Unlock()
	if tk := ticks[len(ticks)-1]; tk.Trigger != string(scheduler.TriggerScheduled) {
		t.Errorf("trigger = %q, want scheduled", tk.Trigger)
	}
}

// A reminder that fell due more than the grace before the bot started is
// not sent; a note of it waits among the chat's new messages.
func TestDroppedReminderIsNoted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "airi.db")
	clk := &vclock{t: time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)}
	out := &fakeSender{name: "console"}
	b := reminderBot(t, path, clk, &scriptModel{}, out)
	defer b.Close(context.Background())
	ctx := context.Background()
	if err := b.Store().UpsertChannel(ctx, state.Channel{ID: "c", Platform: "console"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Store().AddReminder(ctx, state.Reminder{ChannelID: "c", Content: "call the vet", Due: clk.Now(), Zone: "UTC"}, state.ReminderLimits{}); err != nil {
		t.Fatal(err)
	}
	clk.Add(30 * time.Hour)
	if _, err := b.Reminders().Step(ctx); err != nil {
		t.Fatal(err)
	}
	if len(out.sent) != 0 {
		t.Fatalf("sent %+v, want nothing past the grace", out.sent)
	}
	unread, err := b.Store().Unread(ctx, "c", 0)
	if err != nil || len(unread) != 1 || !strings.Contains(unread[0].Content, "reminder 1 dropped") || !strings.Contains(unread[0].Content, "call the vet") {
		t.Fatalf("unread = %+v, %v; want the note of the dropped reminder", unread, err)
	}
	if n := b.ReminderCounts().Dropped.Load(); n != 1 {
		t.Errorf("dropped count = %d", n)
	}
}

// An engine stepping the bot on a virtual clock (eval) sees a reminder as
// the next thing due, and running it delivers the reminder.
func TestSessionBotRunsReminders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "airi.db")
	clk := &vclock{t: time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)}
	out := &fakeSender{name: "console"}
	b := reminderBot(t, path, clk, &scriptModel{}, out)
	r := &sessionBot{b: b}
	defer b.Close(context.Background())
	ctx := context.Background()
	if _, _, _, ok := r.NextDue(); ok {
		t.Fatal("something is due on an empty bot")
	}
	due := clk.Now().Add(90 * time.Minute)
	if _, err := b.Store().AddReminder(ctx, state.Reminder{ChannelID: "c", Content: "tea", Due: due, Zone: "UTC"}, state.ReminderLimits{}); err != nil {
		t.Fatal(err)
	}
	id, at, trig, ok := r.NextDue()
	if !ok || id != "c" || !at.Equal(due) || trig != string(scheduler.TriggerScheduled) {
		t.Fatalf("NextDue = %q %v %q %v, want the reminder", id, at, trig, ok)
	}
	clk.Add(90 * time.Minute)
	if _, ok := r.RunDue(ctx, "c"); !ok {
		t.Fatal("RunDue did nothing")
	}
	if len(out.sent) != 1 || out.sent[0].Content != "tea" {
		t.Fatalf("sent %+v", out.sent)
	}
	if _, _, _, ok := r.NextDue(); ok {
		t.Fatal("the delivered reminder is still due")
	}
}
