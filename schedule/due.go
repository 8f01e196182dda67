package schedule

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/state"
)

// Defaults of the due loop.
const (
	// DefaultInterval is how often the due loop looks for due reminders.
	DefaultInterval = time.Second
	// DefaultGrace is how late a reminder may still be delivered: one
	// that fell due longer ago while the bot was down is dropped (a
	// recurring one goes on with its next occurrence).
	DefaultGrace = 24 * time.Hour
	// LateNote is how late a delivery must be to carry a note of its delay.
	LateNote = time.Minute
)

// TriggerScheduled is the trigger of a wake that a composed reminder starts.
const TriggerScheduled = "scheduled"

// Store is what the due loop needs of the state.
type Store interface {
	DueReminders(ctx context.Context, t time.Time, limit int) ([]state.Reminder, error)
	ClaimReminder(ctx context.Context, c state.ReminderClaim) (int64, error)
	SetOutboxState(ctx context.Context, id int64, st state.OutboxState, platformID, errText string) error
	RecordSent(ctx context.Context, id int64, platformID, errText string, msg state.Message) error
	AddSkippedWake(ctx context.Context, w state.SkippedWake) (int64, error)
	AddOutbox(ctx context.Context, e state.OutboxEntry) (int64, error)
}

// Sender sends a message to a channel (the id as the model sees it); an
// error wrapping state.ErrOutcomeUnknown means it may have gone out.
type Sender interface {
	Send(ctx context.Context, out state.Outgoing) (platformID string, err error)
}

// Composer wakes a chat for a composed reminder (trigger
// TriggerScheduled) with the reminder in its state message. It returns
// ErrNoBudget when the token budget is spent: the reminder's text is sent
// instead.
type Composer interface {
	Compose(ctx context.Context, r state.Reminder, note string) error
}

// ErrNoBudget is a Composer's refusal of a wake the budget cannot pay for.
var ErrNoBudget = errors.New("the token budget is spent")

// Counts are the due loop's counters since start, for /metrics.
type Counts struct {
	Scheduled, Delivered, Late, Dropped, Cancelled, Failed atomic.Int64
}

// Due is the due loop: it delivers the reminders whose time has come.
// Make one with its fields set, then call Run, or Step from tests on a
// virtual clock.
type Due struct {
	Store  Store
	Sender Sender
	// Composer wakes a chat for a composed reminder; nil sends its text.
	Composer Composer
	Zones    Zones
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Interval is how often Run looks; zero is DefaultInterval, negative
	// turns the timer off (only Wake and Step deliver).
	Interval time.Duration
	// Grace is how late a delivery may be [DefaultGrace].
	Grace time.Duration
	// Pin, when set, says whether this process delivers for a channel
	// (it holds the channel's lease) and keeps the lease while it does.
	Pin func(channelID string) (release func(), ok bool)
	// Allowed, when set, says whether the bot may act in a channel.
	Allowed func(channelID string) bool
	// Dropped, when set, tells the chat of a reminder dropped past the
	// grace (the runtime stores a note its next state shows).
	Dropped func(ctx context.Context, r state.Reminder, reason string)
	// BotName is the name the bot's own stored messages carry.
	BotName string
	Counts  *Counts
	Logger  *zap.Logger

	wake chan struct{}
}

func (d *Due) now() time.Time {
	if d.Now == nil {
		return time.Now()
	}
	return d.Now()
}

func (d *Due) log() *zap.Logger {
	if d.Logger == nil {
		return zap.NewNop()
	}
	return d.Logger
}

func (d *Due) counts() *Counts {
	if d.Counts == nil {
		d.Counts = &Counts{}
	}
	return d.Counts
}

func (d *Due) wakeCh() chan struct{} {
	if d.wake == nil {
		d.wake = make(chan struct{}, 1)
	}
	return d.wake
}

// Init prepares d to be woken from other goroutines; call it before Run
// and Wake are used concurrently.
func (d *Due) Init() { d.wakeCh(); d.counts() }

// Wake asks Run to look now, as a new reminder may be due before its next
// look.
func (d *Due) Wake() {
	select {
	case d.wakeCh() <- struct{}{}:
	default:
	}
}

// Run looks for due reminders at start (delivering those missed while the
// bot was down) and then every Interval or when woken, until ctx ends.
func (d *Due) Run(ctx context.Context) error {
	wake := d.wakeCh()
	interval := d.Interval
	if interval == 0 {
		interval = DefaultInterval
	}
	var tick <-chan time.Time
	if interval > 0 {
		t := time.NewTicker(interval)
		defer t.Stop()
		tick = t.C
	}
	for {
		if _, err := d.Step(ctx); err != nil && ctx.Err() == nil {
			d.log().Warn("deliver due reminders", zap.Error(err))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick:
		case <-wake:
		}
	}
}

// Step delivers every reminder due now that this process delivers, and
// returns how many occurrences it handled.
func (d *Due) Step(ctx context.Context) (int, error) {
	now := d.now()
	due, err := d.Store.DueReminders(ctx, now, 0)
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, r := range due {
		if d.Allowed != nil && !d.Allowed(r.ChannelID) {
			continue
		}
		handled, err := d.deliverPinned(ctx, r, now)
		if err != nil {
			errs = append(errs, err)
		}
		if handled {
			n++
		}
	}
	return n, errors.Join(errs...)
}

func (d *Due) deliverPinned(ctx context.Context, r state.Reminder, now time.Time) (bool, error) {
	if d.Pin != nil {
		release, ok := d.Pin(r.ChannelID)
		if !ok {
			return false, nil // another replica holds the chat
		}
		defer release()
	}
	return d.deliver(ctx, r, now)
}

// next finds the first occurrence after now and how many were passed over.
func next(r state.Reminder, loc *time.Location, now time.Time) (time.Time, int, error) {
	if r.Every == "" {
		return time.Time{}, 0, nil
	}
	// Bounded: a year of hourly occurrences is under 9,000.
	for k := r.Count + 1; k < r.Count+100_000; k++ {
		t, err := Occurrence(r.First, r.Every, loc, k)
		if err != nil {
			return time.Time{}, 0, err
		}
		if t.After(now) {
			return t, k - r.Count - 1, nil
		}
	}
	return time.Time{}, 0, fmt.Errorf("reminder %d: no next occurrence found", r.ID)
}

func (d *Due) deliver(ctx context.Context, r state.Reminder, now time.Time) (bool, error) {
	log := d.log().With(zap.Int64("reminder", r.ID), zap.String("channel", r.ChannelID))
	loc := d.zone(r)
	nextDue, skipped, err := next(r, loc, now)
	if err != nil {
		return false, err
	}
	claim := state.ReminderClaim{ID: r.ID, Count: r.Count, Due: r.Due, Next: nextDue, Skipped: skipped}
	late := now.Sub(r.Due)
	grace := d.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	if late > grace {
		claim.End = state.ReminderDropped
		if _, err := d.Store.ClaimReminder(ctx, claim); err != nil {
			return false, ignoreClaimed(err)
		}
		d.counts().Dropped.Add(1)
		reason := fmt.Sprintf("reminder %d dropped: due %s, %s late, past the grace of %s", r.ID, Format(r.Due, loc), formatLate(late), grace)
		log.Warn("reminder dropped", zap.Time("due", r.Due), zap.Duration("late", late), zap.Duration("grace", grace))
		if _, err := d.Store.AddSkippedWake(context.WithoutCancel(ctx), state.SkippedWake{
			ChannelID: r.ChannelID, Trigger: TriggerScheduled, Reason: reason, Time: now}); err != nil {
			log.Warn("record the dropped reminder", zap.Error(err))
		}
		if d.Dropped != nil {
			d.Dropped(context.WithoutCancel(ctx), r, reason)
		}
		return true, nil
	}
	note := ""
	if late >= LateNote {
		note = fmt.Sprintf("(reminder due %s, sent %s late: the bot was not running)", Format(r.Due, loc), formatLate(late))
		d.counts().Late.Add(1)
	}
	if r.Compose && d.Composer != nil {
		if _, err := d.Store.ClaimReminder(ctx, claim); err != nil {
			return false, ignoreClaimed(err)
		}
		err := d.Composer.Compose(ctx, r, note)
		if err == nil {
			d.counts().Delivered.Add(1)
			log.Info("reminder woke its chat", zap.Duration("late", late))
			return true, nil
		}
		if !errors.Is(err, ErrNoBudget) {
			d.counts().Failed.Add(1)
			return true, fmt.Errorf("compose reminder %d: %w", r.ID, err)
		}
		log.Info("token budget spent: the composed reminder is sent as its text")
		// The occurrence is ours already: the fallback send goes through
		// the outbox like any other, once.
		return true, d.sendClaimed(ctx, r, note, now, log)
	}
	content := withNote(r.Content, note)
	claim.Outbox = &state.OutboxEntry{ChannelID: r.ChannelID, Content: content, Created: now, Updated: now}
	id, err := d.Store.ClaimReminder(ctx, claim)
	if err != nil {
		return false, ignoreClaimed(err)
	}
	return true, d.send(ctx, r, id, content, now, log)
}

// sendClaimed sends the text of a reminder whose occurrence was claimed
// without an outbox entry.
func (d *Due) sendClaimed(ctx context.Context, r state.Reminder, note string, now time.Time, log *zap.Logger) error {
	content := withNote(r.Content, note)
	id, err := d.Store.AddOutbox(ctx, state.OutboxEntry{ChannelID: r.ChannelID, Content: content, Created: now, Updated: now})
	if err != nil {
		return fmt.Errorf("reminder %d: record send in outbox: %w", r.ID, err)
	}
	return d.send(ctx, r, id, content, now, log)
}

func (d *Due) send(ctx context.Context, r state.Reminder, id int64, content string, now time.Time, log *zap.Logger) error {
	platformID, sendErr := d.Sender.Send(ctx, state.Outgoing{ChannelID: r.ChannelID, Content: content})
	bg := context.WithoutCancel(ctx)
	if sendErr != nil && platformID == "" {
		st := state.OutboxFailed
		if errors.Is(sendErr, state.ErrOutcomeUnknown) {
			st = state.OutboxUnknown
		}
		d.counts().Failed.Add(1)
		if err := d.Store.SetOutboxState(bg, id, st, "", sendErr.Error()); err != nil {
			log.Error("record the failed reminder send", zap.Error(err))
		}
		return fmt.Errorf("send reminder %d: %w", r.ID, sendErr)
	}
	errText := ""
	if sendErr != nil {
		errText = sendErr.Error()
	}
	d.counts().Delivered.Add(1)
	log.Info("reminder delivered", zap.Int64("outbox", id), zap.Duration("late", now.Sub(r.Due)))
	sent := state.Message{ChannelID: r.ChannelID, PlatformID: platformID, SenderID: state.ReminderSenderID, SenderName: d.BotName, Self: true,
		Content: content, Time: now, Read: true}
	if err := d.Store.RecordSent(bg, id, platformID, errText, sent); err != nil {
		log.Error("reminder sent, but its outbox entry could not be marked done", zap.Error(err))
	}
	return nil
}

func (d *Due) zone(r state.Reminder) *time.Location {
	if loc, err := time.LoadLocation(r.Zone); err == nil && r.Zone != "" {
		return loc
	}
	return d.Zones.For(r.ChannelID)
}

// ignoreClaimed treats an occurrence handled elsewhere as nothing to do.
// A claim refused because the chat's lease moved on the way is returned:
// the replica that holds it now delivers.
func ignoreClaimed(err error) error {
	if errors.Is(err, state.ErrReminderClaimed) {
		return nil
	}
	return err
}

func withNote(content, note string) string {
	if note == "" {
		return content
	}
	return content + "\n\n" + note
}

// formatLate writes how late a reminder is for people: "40 s", "12 min",
// "2 h 30 min".
func formatLate(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Round(time.Second)/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Round(time.Minute)/time.Minute))
	}
	d = d.Round(time.Minute)
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	if m == 0 {
		return fmt.Sprintf("%d h", h)
	}
	return fmt.Sprintf("%d h %d min", h, m)
}
