package schedule_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/schedule"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// clock is a virtual clock the tests move by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// sender records what was sent, as a platform would receive it.
type sender struct {
	mu   sync.Mutex
	sent []sent
	fail error
}

type sent struct {
	at  time.Time
	out state.Outgoing
}

func (s *sender) Send(_ context.Context, out state.Outgoing) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return "", s.fail
	}
	s.sent = append(s.sent, sent{out: out})
	return fmt.Sprintf("p%d", len(s.sent)), nil
}

type env struct {
	store *sqlite.Store
	clock *clock
	send  *sender
	due   *schedule.Due
	acts  *schedule.Actions
	reg   *actions.Registry
	path  string
}

func newEnv(t *testing.T, start time.Time, zones schedule.Zones) *env {
	t.Helper()
	path := filepath.Join(t.TempDir(), "airi.db")
	e := &env{clock: &clock{t: start}, send: &sender{}, path: path}
	e.open(t, zones)
	return e
}

// open opens the store, closing the previous one first: the file lock
// is per process, and every write before is committed, as after a crash.
func (e *env) open(t *testing.T, zones schedule.Zones) {
	t.Helper()
	if e.store != nil {
		_ = e.store.Close()
	}
	st, err := sqlite.Open(context.Background(), e.path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	st.Now = e.clock.Now
	e.store = st
	e.due = &schedule.Due{Store: st, Sender: e.send, Zones: zones, Now: e.clock.Now, Interval: -1,
		BotName: "airi", Logger: zaptest.NewLogger(t)}
	e.acts = &schedule.Actions{Store: st, Zones: zones, Now: e.clock.Now}
	var h actions.Handlers
	e.acts.Bind(&h)
	reg, err := actions.NewBuiltinRegistry(h)
	if err != nil {
		t.Fatal(err)
	}
	e.reg = reg
	for _, id := range []string{"a", "b"} {
		if err := st.UpsertChannel(context.Background(), state.Channel{ID: id, Platform: "console"}); err != nil {
			t.Fatal(err)
		}
	}
}

// act runs one action as the model would answer it in channel.
func (e *env) act(t *testing.T, channel, name string, params any) actions.Result {
	t.Helper()
	raw, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.reg.Decode(name, raw)
	if err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	return e.reg.Dispatch(context.Background(), actions.Call{Channel: channel, Action: a})
}

// step runs the due loop once and stamps what it sent with the clock.
func (e *env) step(t *testing.T) {
	t.Helper()
	before := len(e.send.sent)
	if _, err := e.due.Step(context.Background()); err != nil {
		t.Fatalf("Step: %v", err)
	}
	for i := before; i < len(e.send.sent); i++ {
		e.send.sent[i].at = e.clock.Now()
	}
}

func TestAfterArrivesOnce(t *testing.T) {
	start := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	e := newEnv(t, start, schedule.Zones{})
	res := e.act(t, "a", actions.NameSchedule, map[string]any{"channelId": "a", "content": "call the vet", "after": "8s"})
	if !res.OK || !strings.Contains(res.Text, "reminder 1 set for Fri 1 May 2026 10:00 UTC") {
		t.Fatalf("schedule result = %+v", res)
	}
	for i := 0; i < 20; i++ { // 20 s in steps of one
		e.clock.Add(time.Second)
		e.step(t)
	}
	if len(e.send.sent) != 1 {
		t.Fatalf("sent %d messages, want 1: %+v", len(e.send.sent), e.send.sent)
	}
	if got := e.send.sent[0]; got.out.Content != "call the vet" || got.out.ChannelID != "a" || !got.at.Equal(start.Add(8*time.Second)) {
		t.Fatalf("sent %+v, want the content in a at +8s", got)
	}
	hist, _, err := e.store.History(context.Background(), "a", 0)
	if err != nil || len(hist) != 1 || !hist[0].Self || hist[0].PlatformID != "p1" {
		t.Fatalf("history = %+v, %v; want the sent reminder", hist, err)
	}
	// A session export finds the delivery by its sender.
	if sends, err := e.store.ReminderSends(context.Background(), state.TickFilter{ChannelID: "a"}); err != nil || len(sends) != 1 || sends[0].Content != "call the vet" {
		t.Fatalf("reminder sends = %+v, %v; want the delivery", sends, err)
	}
	if pend, _ := e.store.PendingOutbox(context.Background()); len(pend) != 0 {
		t.Fatalf("outbox still pending: %+v", pend)
	}
}

// A crash 4 s after scheduling, then a restart at once: the reminder is
// still delivered once, at its time.
func TestAfterAcrossRestart(t *testing.T) {
	start := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	e := newEnv(t, start, schedule.Zones{})
	e.act(t, "a", actions.NameSchedule, map[string]any{"channelId": "a", "content": "stretch", "after": "8s"})
	e.clock.Add(4 * time.Second)
	e.step(t)
	// The process dies without closing anything; the next one opens the
	// same file.
	e.open(t, schedule.Zones{})
	for i := 0; i < 10; i++ {
		e.clock.Add(time.Second)
		e.step(t)
	}
	if len(e.send.sent) != 1 || !e.send.sent[0].at.Equal(start.Add(8*time.Second)) {
		t.Fatalf("sent %+v, want one message at +8s", e.send.sent)
	}
}

// A crash after the occurrence was claimed into the outbox but before the
// send was marked: the next start reports the entry as pending and never
// sends the reminder again.
func TestClaimedNotSentIsNotRepeated(t *testing.T) {
	start := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	e := newEnv(t, start, schedule.Zones{})
	ctx := context.Background()
	r, err := e.store.AddReminder(ctx, state.Reminder{ChannelID: "a", Content: "once", Due: start.Add(time.Second), Zone: "UTC"}, state.ReminderLimits{})
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Add(2 * time.Second)
	// What the due loop does before it calls the platform, then the crash.
	id, err := e.store.ClaimReminder(ctx, state.ReminderClaim{ID: r.ID, Count: r.Count, Due: r.Due,
		Outbox: &state.OutboxEntry{ChannelID: "a", Content: "once"}})
	if err != nil {
		t.Fatal(err)
	}
	e.open(t, schedule.Zones{})
	for i := 0; i < 5; i++ {
		e.clock.Add(time.Second)
		e.step(t)
	}
	if len(e.send.sent) != 0 {
		t.Fatalf("sent %+v after the crash, want nothing", e.send.sent)
	}
	pend, err := e.store.PendingOutbox(ctx)
	if err != nil || len(pend) != 1 || pend[0].ID != id {
		t.Fatalf("pending outbox = %+v, %v; want the claimed entry reported", pend, err)
	}
}

// Every hour over 48 hours across the end of summer time in Berlin: 48
// deliveries, each at the same local minute.
func TestHourlyAcrossDaylightSaving(t *testing.T) {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 10, 24, 8, 17, 0, 0, loc) // the change is 25 Oct 03:00 CEST
	zones := schedule.Zones{Default: time.UTC, Channels: map[string]*time.Location{"a": loc}}
	e := newEnv(t, start, zones)
	res := e.act(t, "a", actions.NameSchedule, map[string]any{"channelId": "a", "content": "drink water", "at": "2026-10-24 09:00", "every": "1h"})
	if !res.OK || !strings.Contains(res.Text, "09:00 CEST") {
		t.Fatalf("schedule result = %+v", res)
	}
	end := time.Date(2026, 10, 24, 9, 0, 0, 0, loc).Add(48*time.Hour - time.Minute)
	for e.clock.Now().Before(end) {
		e.clock.Add(time.Minute)
		e.step(t)
	}
	if len(e.send.sent) != 48 {
		t.Fatalf("%d deliveries in 48 hours, want 48", len(e.send.sent))
	}
	hours := map[int]int{}
	for i, s := range e.send.sent {
		l := s.at.In(loc)
		if l.Minute() != 0 || s.out.Content != "drink water" {
			t.Fatalf("delivery %d at %v (%q), want minute 00 and the content alone", i, l, s.out.Content)
		}
		if i > 0 && s.at.Sub(e.send.sent[i-1].at) != time.Hour {
			t.Fatalf("delivery %d %v after the previous, want 1h", i, s.at.Sub(e.send.sent[i-1].at))
		}
		hours[l.Hour()]++
	}
	// The repeated hour 02:00 of the change is delivered twice (CEST and CET).
	if hours[2] != 3 {
		t.Errorf("local 02:00 delivered %d times, want 3 (twice on the day of the change)", hours[2])
	}
}

func TestDailyKeepsLocalTime(t *testing.T) {
	loc, _ := time.LoadLocation("Europe/Berlin")
	start := time.Date(2026, 3, 27, 8, 0, 0, 0, loc)
	e := newEnv(t, start, schedule.Zones{Default: loc})
	e.act(t, "a", actions.NameSchedule, map[string]any{"channelId": "a", "content": "meds", "at": "2026-03-27 09:30", "every": "daily"})
	for i := 0; i < 4*24*12; i++ { // four days in steps of 5 minutes
		e.clock.Add(5 * time.Minute)
		e.step(t)
	}
	if len(e.send.sent) != 4 {
		t.Fatalf("%d deliveries, want 4", len(e.send.sent))
	}
	for _, s := range e.send.sent {
		if l := s.at.In(loc); l.Hour() != 9 || l.Minute() != 30 {
			t.Errorf("delivered at %v, want 09:30 local", l)
		}
	}
}

// Reminders missed while the bot was down: delivered on start with a note
// of the delay within the grace, dropped past it (and the drop recorded).
func TestMissedWhileDown(t *testing.T) {
	start := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	e := newEnv(t, start, schedule.Zones{})
	ctx := context.Background()
	add := func(ch, content string, due time.Time, every string) state.Reminder {
		r, err := e.store.AddReminder(ctx, state.Reminder{ChannelID: ch, Content: content, Due: due, Every: every, Zone: "UTC"}, state.ReminderLimits{})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	late := add("a", "late one", start.Add(time.Hour), "")
	old := add("b", "old one", start.Add(time.Minute), "")
	hourly := add("a", "hourly", start.Add(time.Minute), "1h")
	e.due.Grace = 3 * time.Hour
	// Down from 10:00 to 13:30.
	e.clock.Add(3*time.Hour + 30*time.Minute)
	e.step(t)
	if len(e.send.sent) != 1 {
		t.Fatalf("sent %+v, want only the late one", e.send.sent)
	}
	if c := e.send.sent[0].out.Content; !strings.HasPrefix(c, "late one\n\n(reminder due Fri 1 May 2026 11:00 UTC, sent 2 h 30 min late") {
		t.Fatalf("late content = %q", c)
	}
	if r, _ := e.store.Reminder(ctx, old.ID); r.State != state.ReminderDropped {
		t.Fatalf("old one = %+v, want dropped", r)
	}
	h, _ := e.store.Reminder(ctx, hourly.ID)
	if h.State != state.ReminderPending || !h.Due.Equal(start.Add(4*time.Hour+time.Minute)) {
		t.Fatalf("hourly after the gap = %+v, want pending at 14:01", h)
	}
	skips, err := e.store.SkippedWakes(ctx, state.TickFilter{})
	if err != nil || len(skips) != 2 || !strings.Contains(skips[0].Reason, "dropped") || skips[0].Trigger != schedule.TriggerScheduled {
		t.Fatalf("skipped wakes = %+v, %v; want both drops recorded", skips, err)
	}
	_ = late
}

func TestOnlyTheOwningChat(t *testing.T) {
	start := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	e := newEnv(t, start, schedule.Zones{})
	e.act(t, "a", actions.NameSchedule, map[string]any{"channelId": "a", "content": "secret plan", "after": "1h"})
	if res := e.act(t, "b", actions.NameListSchedules, map[string]any{}); strings.Contains(res.Text, "secret") || !strings.Contains(res.Text, "no pending") {
		t.Fatalf("list from b = %q", res.Text)
	}
	if res := e.act(t, "b", actions.NameListSchedules, map[string]any{"channelId": "a"}); strings.Contains(res.Text, "secret") {
		t.Fatalf("list of a from b = %q", res.Text)
	}
	if res := e.act(t, "b", actions.NameCancelSchedule, map[string]any{"id": "1"}); res.OK || !strings.Contains(res.Text, "nothing cancelled") {
		t.Fatalf("cancel from b = %+v", res)
	}
	if res := e.act(t, "b", actions.NameSchedule, map[string]any{"channelId": "a", "content": "x", "after": "1h"}); res.OK {
		t.Fatalf("schedule for a from b = %+v, want refused", res)
	}
	if res := e.act(t, "a", actions.NameListSchedules, map[string]any{}); !strings.Contains(res.Text, `id 1 at Fri 1 May 2026 11:00 UTC: "secret plan"`) {
		t.Fatalf("list from a = %q", res.Text)
	}
	if res := e.act(t, "a", actions.NameCancelSchedule, map[string]any{"id": "1"}); !res.OK {
		t.Fatalf("cancel from a = %+v", res)
	}
	e.clock.Add(2 * time.Hour)
	e.step(t)
	if len(e.send.sent) != 0 {
		t.Fatalf("a cancelled reminder was sent: %+v", e.send.sent)
	}
}

func TestCaps(t *testing.T) {
	start := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	e := newEnv(t, start, schedule.Zones{})
	e.acts.Max = 2
	ctx := context.Background()
	if _, _, err := e.store.Ingest(ctx, state.Message{ChannelID: "a", PlatformID: "m1", SenderID: "u1", SenderName: "Ada", Content: "remind me", Time: start}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if res := e.act(t, "a", actions.NameSchedule, map[string]any{"channelId": "a", "content": "x", "after": "1h"}); !res.OK {
			t.Fatalf("schedule %d: %+v", i, res)
		}
	}
	res := e.act(t, "a", actions.NameSchedule, map[string]any{"channelId": "a", "content": "x", "after": "1h"})
	if res.OK || !strings.Contains(res.Text, "2 reminders are already pending for this channel") {
		t.Fatalf("third = %+v", res)
	}
	rs, _ := e.store.ListReminders(ctx, state.ReminderFilter{ChannelID: "a"})
	if len(rs) != 2 || rs[0].CreatedBy != "u1" {
		t.Fatalf("reminders = %+v, want 2 by u1", rs)
	}
	if res := e.act(t, "a", actions.NameSchedule, map[string]any{"channelId": "a", "content": "x", "after": "30s", "every": "10m"}); res.OK || !strings.Contains(res.Text, "shorter than an hour") {
		t.Fatalf("every 10m = %+v", res)
	}
}

// composer wakes the chat, or refuses for a spent budget.
type composer struct {
	woken  []state.Reminder
	budget bool
}

func (c *composer) Compose(_ context.Context, r state.Reminder, _ string) error {
	if !c.budget {
		return schedule.ErrNoBudget
	}
	c.woken = append(c.woken, r)
	return nil
}

func TestComposeAndBudgetFallback(t *testing.T) {
	start := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	e := newEnv(t, start, schedule.Zones{})
	c := &composer{budget: true}
	e.due.Composer = c
	e.act(t, "a", actions.NameSchedule, map[string]any{"channelId": "a", "content": "ask about the trip", "after": "1m", "compose": true})
	e.act(t, "a", actions.NameSchedule, map[string]any{"channelId": "a", "content": "ask about the exam", "after": "2m", "compose": true})
	e.clock.Add(time.Minute)
	e.step(t)
	if len(c.woken) != 1 || len(e.send.sent) != 0 {
		t.Fatalf("woken %d, sent %d; want one wake and no send", len(c.woken), len(e.send.sent))
	}
	c.budget = false
	e.clock.Add(time.Minute)
	e.step(t)
	if len(c.woken) != 1 || len(e.send.sent) != 1 || e.send.sent[0].out.Content != "ask about the exam" {
		t.Fatalf("with the budget spent: woken %d, sent %+v; want the text sent", len(c.woken), e.send.sent)
	}
	e.clock.Add(time.Hour)
	e.step(t)
	if len(c.woken) != 1 || len(e.send.sent) != 1 {
		t.Fatalf("a reminder was handled twice")
	}
}

func TestFailedSendIsRecorded(t *testing.T) {
	start := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	e := newEnv(t, start, schedule.Zones{})
	e.act(t, "a", actions.NameSchedule, map[string]any{"channelId": "a", "content": "x", "after": "1s"})
	e.send.fail = fmt.Errorf("timeout: %w", state.ErrOutcomeUnknown)
	e.clock.Add(time.Second)
	if _, err := e.due.Step(context.Background()); err == nil || !errors.Is(err, state.ErrOutcomeUnknown) {
		t.Fatalf("Step error = %v, want the send's", err)
	}
	e.send.fail = nil
	e.clock.Add(time.Second)
	e.step(t)
	if len(e.send.sent) != 0 {
		t.Fatalf("a send of unknown outcome was repeated: %+v", e.send.sent)
	}
	if pend, _ := e.store.PendingOutbox(context.Background()); len(pend) != 0 {
		t.Fatalf("pending = %+v, want the entry marked unknown", pend)
	}
}

// BenchmarkStepNothingDue is the due loop's cost each second with many
// reminders pending and none due.
func BenchmarkStepNothingDue(b *testing.B) {
	start := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	path := filepath.Join(b.TempDir(), "airi.db")
	st, err := sqlite.Open(context.Background(), path, zaptest.NewLogger(b))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	for i := range 1000 {
		if _, err := st.AddReminder(context.Background(), state.Reminder{ChannelID: fmt.Sprint("c", i%50), Content: "x",
			Due: start.Add(time.Duration(i+1) * time.Minute), Zone: "UTC"}, state.ReminderLimits{}); err != nil {
			b.Fatal(err)
		}
	}
	d := &schedule.Due{Store: st, Sender: &sender{}, Now: func() time.Time { return start }, Interval: -1}
	b.ResetTimer()
	for b.Loop() {
		if n, err := d.Step(context.Background()); err != nil || n != 0 {
			b.Fatal(n, err)
		}
	}
}
