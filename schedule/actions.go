package schedule

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/state"
)

// Defaults of the reminder actions.
const (
	// DefaultMax caps the pending reminders of one chat (AIRI_SCHEDULE_MAX).
	DefaultMax = 20
	// DefaultMaxPerPerson caps the pending reminders one person asked for,
	// across chats (AIRI_SCHEDULE_MAX_PER_USER).
	DefaultMaxPerPerson = 10
)

// ActionStore is what the reminder actions need of the state.
type ActionStore interface {
	AddReminder(ctx context.Context, r state.Reminder, lim state.ReminderLimits) (state.Reminder, error)
	ListReminders(ctx context.Context, f state.ReminderFilter) ([]state.Reminder, error)
	CancelReminder(ctx context.Context, id int64, channelID string) error
	Unread(ctx context.Context, channelID string, limit int) ([]state.Message, error)
	History(ctx context.Context, channelID string, limit int) ([]state.Message, int, error)
}

// Actions implements schedule, list_schedules and cancel_schedule. A chat
// sees, lists and cancels only its own reminders: the reminder belongs to
// the channel whose tick set it.
type Actions struct {
	Store ActionStore
	Zones Zones
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Max and MaxPerPerson cap pending reminders [DefaultMax,
	// DefaultMaxPerPerson]; negative sets no cap.
	Max, MaxPerPerson int
	// Scheduled, when set, hears of each new reminder (the due loop's
	// Wake, so that one due soon is not left to the next look).
	Scheduled func(state.Reminder)
	// Counts, when set, counts scheduled and cancelled reminders.
	Counts *Counts
}

// Bind sets the reminder handlers of h.
func (a *Actions) Bind(h *actions.Handlers) {
	h.Schedule = actions.HandlerFunc(a.schedule)
	h.ListSchedules = actions.HandlerFunc(a.list)
	h.CancelSchedule = actions.HandlerFunc(a.cancel)
}

func (a *Actions) now() time.Time {
	if a.Now == nil {
		return time.Now()
	}
	return a.Now()
}

func limit(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

func refused(format string, args ...any) actions.Result {
	return actions.Result{Next: true, Text: "no reminder set: " + fmt.Sprintf(format, args...)}
}

func (a *Actions) schedule(ctx context.Context, call actions.Call) (actions.Result, error) {
	p, ok := call.Action.Params.(*actions.Schedule)
	if !ok {
		return actions.Result{}, fmt.Errorf("schedule got parameters of type %T", call.Action.Params)
	}
	if p.ChannelID != call.Channel {
		return refused("a reminder can only be set for this chat: use channelId %q", call.Channel), nil
	}
	if strings.TrimSpace(p.Content) == "" {
		return refused("content is empty: write the message to send at the due time"), nil
	}
	loc := a.Zones.For(call.Channel)
	now := a.now()
	plan, err := Resolve(When{At: p.At, After: p.After, Every: p.Every}, now, loc)
	if err != nil {
		return refused("%v", err), nil
	}
	by, err := a.requester(ctx, call.Channel)
	if err != nil {
		return actions.Result{}, err
	}
	r, err := a.Store.AddReminder(ctx, state.Reminder{
		ChannelID: call.Channel, CreatedBy: by, Content: p.Content, First: plan.First, Due: plan.First,
		Every: plan.Every, Zone: loc.String(), Compose: p.Compose,
	}, state.ReminderLimits{PerChannel: limit(a.Max, DefaultMax), PerPerson: limit(a.MaxPerPerson, DefaultMaxPerPerson)})
	var le *state.ReminderLimitError
	if errors.As(err, &le) {
		return refused("%v; cancel one first (list_schedules shows them)", le), nil
	}
	if err != nil {
		return actions.Result{}, err
	}
	if a.Counts != nil {
		a.Counts.Scheduled.Add(1)
	}
	if a.Scheduled != nil {
		a.Scheduled(r)
	}
	text := fmt.Sprintf("reminder %d set for %s", r.ID, Format(r.Due, loc))
	if r.Every != "" {
		text += ", repeating " + everyText(r.Every)
	}
	if r.Compose {
		text += "; you will be woken to write it"
	}
	return actions.Result{OK: true, Next: true, Text: text}, nil
}

// requester is the sender of the chat's latest message from someone else:
// the person the reminder answers.
func (a *Actions) requester(ctx context.Context, channelID string) (string, error) {
	unread, err := a.Store.Unread(ctx, channelID, 0)
	if err != nil {
		return "", fmt.Errorf("read unread of %q: %w", channelID, err)
	}
	hist, _, err := a.Store.History(ctx, channelID, 20)
	if err != nil {
		return "", fmt.Errorf("read history of %q: %w", channelID, err)
	}
	var latest state.Message
	for _, m := range append(hist, unread...) {
		if !m.Self && m.ID > latest.ID {
			latest = m
		}
	}
	return latest.SenderID, nil
}

func everyText(every string) string {
	if every == Daily || every == Weekly {
		return every
	}
	d, err := time.ParseDuration(every)
	if err != nil {
		return every
	}
	return "every " + shortDuration(d)
}

// shortDuration writes 1h0m0s as 1h and 90m as 1h30m.
func shortDuration(d time.Duration) string {
	s := d.String()
	s = strings.TrimSuffix(s, "0s")
	s = strings.TrimSuffix(s, "0m")
	return s
}

func (a *Actions) list(ctx context.Context, call actions.Call) (actions.Result, error) {
	p, ok := call.Action.Params.(*actions.ListSchedules)
	if !ok {
		return actions.Result{}, fmt.Errorf("list_schedules got parameters of type %T", call.Action.Params)
	}
	prefix := ""
	if p.ChannelID != "" && p.ChannelID != call.Channel {
		prefix = fmt.Sprintf("only this chat's reminders can be listed, not those of %q. ", p.ChannelID)
	}
	rs, err := a.Store.ListReminders(ctx, state.ReminderFilter{ChannelID: call.Channel, Pending: true})
	if err != nil {
		return actions.Result{}, err
	}
	if len(rs) == 0 {
		return actions.Result{OK: true, Next: true, Text: prefix + "no pending reminders in this chat"}, nil
	}
	loc := a.Zones.For(call.Channel)
	var b strings.Builder
	fmt.Fprintf(&b, "%s%d pending reminders:", prefix, len(rs))
	for _, r := range rs {
		fmt.Fprintf(&b, "\n- id %d at %s", r.ID, Format(r.Due, loc))
		if r.Every != "" {
			b.WriteString(", repeating " + everyText(r.Every))
		}
		if r.Compose {
			b.WriteString(", composed")
		}
		fmt.Fprintf(&b, ": %s", strconv.Quote(r.Content))
	}
	return actions.Result{OK: true, Next: true, Text: b.String()}, nil
}

func (a *Actions) cancel(ctx context.Context, call actions.Call) (actions.Result, error) {
	p, ok := call.Action.Params.(*actions.CancelSchedule)
	if !ok {
		return actions.Result{}, fmt.Errorf("cancel_schedule got parameters of type %T", call.Action.Params)
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(p.ID), "#"), 10, 64)
	if err != nil || id <= 0 {
		return actions.Result{Next: true, Text: fmt.Sprintf("nothing cancelled: id %q is not a reminder id; list_schedules shows them", p.ID)}, nil
	}
	err = a.Store.CancelReminder(ctx, id, call.Channel)
	if errors.Is(err, state.ErrNotFound) {
		return actions.Result{Next: true, Text: fmt.Sprintf("nothing cancelled: this chat has no pending reminder %d; list_schedules shows them", id)}, nil
	}
	if err != nil {
		return actions.Result{}, err
	}
	if a.Counts != nil {
		a.Counts.Cancelled.Add(1)
	}
	return actions.Result{OK: true, Next: true, Text: fmt.Sprintf("reminder %d cancelled", id)}, nil
}
