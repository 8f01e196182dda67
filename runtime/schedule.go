package runtime

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/schedule"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state"
)

// reminderSender is the name a composed reminder's message carries in the
// chat's history: the reminder speaks, not a person.
const reminderSender = "reminder"

// bindReminders makes the reminder actions and the due loop, and binds
// the actions into h.
func (b *Bot) bindReminders(h *actions.Handlers, allowed func(string) bool) {
	zones := schedule.Zones{Default: b.cfg.TZ, Channels: b.cfg.ChannelTZ}
	b.remCounts = &schedule.Counts{}
	b.due = &schedule.Due{
		Store: b.store, Sender: b.router, Composer: reminderComposer{b}, Zones: zones, Now: b.now,
		Interval: b.cfg.ScheduleInterval, Grace: b.cfg.ScheduleGrace, Pin: b.pinReminder, Allowed: allowed,
		BotName: b.name, Counts: b.remCounts, Logger: b.log.Named("schedule"), Dropped: b.reminderDropped,
	}
	b.due.Init()
	acts := &schedule.Actions{Store: b.store, Zones: zones, Now: b.now, Max: b.cfg.ScheduleMax,
		MaxPerPerson: b.cfg.ScheduleMaxPerUser, Counts: b.remCounts,
		Scheduled: func(state.Reminder) { b.due.Wake() }}
	acts.Bind(h)
}

// pinReminder says whether this process delivers a channel's reminders:
// on PostgreSQL the replica holding the chat's lease does, so a killed
// replica's reminders move with its channels.
func (b *Bot) pinReminder(channelID string) (func(), bool) {
	if b.replica != nil {
		return b.replica.Pin(channelID)
	}
	if b.leases != nil {
		return b.leases.Pin(channelID)
	}
	return func() {}, true
}

// Reminders is the due loop of the reminders, for callers that step it
// on a clock of their own (replay, eval, tests) with Step.
func (b *Bot) Reminders() *schedule.Due { return b.due }

// ReminderCounts are the reminders scheduled, delivered, late, dropped,
// cancelled and failed since start, for /metrics.
func (b *Bot) ReminderCounts() *schedule.Counts { return b.remCounts }

// reminderDropped stores a note of a dropped reminder as a message of its
// chat from "reminder", so that the chat's next state shows it among the
// new messages and the bot can say so; it wakes the chat as any unread
// message would, no sooner.
func (b *Bot) reminderDropped(ctx context.Context, r state.Reminder, reason string) {
	msg := state.Message{ChannelID: r.ChannelID, PlatformID: fmt.Sprintf("airi-reminder-dropped-%d-%d", r.ID, r.Count),
		SenderID: state.ReminderSenderID, SenderName: reminderSender, Content: fmt.Sprintf("[%s: the bot was not running; it was not sent] %s", reason, r.Content),
		Time: b.now()}
	if _, _, err := b.store.Ingest(ctx, msg); err != nil {
		b.log.Warn("store the note of a dropped reminder", zap.Int64("reminder", r.ID), zap.Error(err))
	}
}

// reminderComposer wakes the chat of a composed reminder: the reminder
// is stored as a message of the chat, new in the state of the wake it
// starts (trigger scheduled), which counts against the budgets like any
// other wake.
type reminderComposer struct{ b *Bot }

func (c reminderComposer) Compose(ctx context.Context, r state.Reminder, note string) error {
	b := c.b
	now := b.now()
	if b.budget != nil {
		if lvl, err := b.budget.Level(ctx, r.ChannelID, now); err == nil && lvl == budget.Exhausted {
			return schedule.ErrNoBudget
		}
	}
	text := fmt.Sprintf("[reminder %d, set earlier in this chat, is due now: write it to the chat] %s", r.ID, r.Content)
	if note != "" {
		text += " " + note
	}
	// The platform id makes the message once per occurrence, whatever retries.
	msg := state.Message{ChannelID: r.ChannelID, PlatformID: fmt.Sprintf("airi-reminder-%d-%d", r.ID, r.Count),
		SenderID: state.ReminderSenderID, SenderName: reminderSender, Content: text, Time: now}
	if _, _, err := b.store.Ingest(ctx, msg); err != nil {
		return fmt.Errorf("store the reminder's message: %w", err)
	}
	b.sched.Signal(r.ChannelID, scheduler.TriggerScheduled)
	return nil
}

// nextReminder is the earliest pending reminder the bot delivers.
func (b *Bot) nextReminder() (state.Reminder, bool) {
	rs, err := b.store.ListReminders(context.Background(), state.ReminderFilter{Pending: true})
	if err != nil {
		b.log.Warn("list pending reminders", zap.Error(err))
		return state.Reminder{}, false
	}
	for _, r := range rs { // by due time
		if b.due.Allowed == nil || b.due.Allowed(r.ChannelID) {
			return r, true
		}
	}
	return state.Reminder{}, false
}

// runDueReminders delivers the reminders due now, then runs the channel's
// scheduled wake (a composed reminder's) as the scheduler's RunDue does.
// ok is false when neither had anything to do.
func (b *Bot) runDueReminders(ctx context.Context, channelID string) (scheduler.WakeReport, bool) {
	n, err := b.due.Step(ctx)
	if err != nil {
		b.log.Warn("deliver due reminders", zap.Error(err))
	}
	rep, ok := b.sched.RunDue(ctx, channelID)
	return rep, ok || n > 0
}
