package replay

import (
	"fmt"
	"time"

	"github.com/airi-go/airi/state"
)

// TypeReminder is the line type of a reminder the bot sent at its due
// time, verbatim, with no model call.
const TypeReminder = "reminder"

// Reminder is a reminder's delivery: the text the reminder loop sent at
// Time (with its note of lateness, if any) and the platform id the send
// got. A composed reminder is not one: it is the event of its note and
// the wake it started (trigger scheduled).
type Reminder struct {
	Type      string    `json:"type"`
	Time      time.Time `json:"time"`
	Content   string    `json:"content"`
	MessageID string    `json:"messageId,omitempty"`
}

// ReminderOf returns the reminder line of a message the reminder loop sent.
func ReminderOf(m state.Message) *Reminder {
	return &Reminder{Type: TypeReminder, Time: m.Time.UTC(), Content: m.Content, MessageID: m.PlatformID}
}

// readReminder decodes a reminder line.
func readReminder(text []byte) (*Reminder, error) {
	var r Reminder
	if err := strictDecode(text, &r); err != nil {
		return nil, err
	}
	if r.Time.IsZero() {
		return nil, fmt.Errorf("a reminder without a time")
	}
	if r.Content == "" {
		return nil, fmt.Errorf("a reminder without content")
	}
	return &r, nil
}

// stepReminders runs the runtime's reminder loop at the time at of the
// recorded reminder line d (nil at the end of the session) and checks
// that what it sent, counted over the whole replay, matches the reminder
// lines so far: the n-th reminder sent is the n-th recorded one, with the
// same text. ticks is how many recorded ticks came before.
func (p *player) stepReminders(at time.Time, d *Reminder, ticks int) error {
	p.mu.Lock()
	p.clock = at
	if d != nil {
		p.remLines = append(p.remLines, d)
	}
	p.stepping = true
	p.mu.Unlock()
	_, err := p.rt.StepReminders(p.ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stepping = false
	if err != nil {
		return fmt.Errorf("replay: deliver the reminders due at %s: %w", at.Format(time.RFC3339), err)
	}
	if p.remDiv != nil {
		return nil
	}
	div := func(expected, got string) {
		p.remDiv = &Divergence{Tick: ticks, Trigger: "scheduled", What: "reminder", Expected: expected, Got: got}
	}
	for i, sent := range p.remSent {
		switch {
		case i >= len(p.remLines):
			div("no reminder due by "+at.Format(time.RFC3339), fmt.Sprintf("a reminder sent: %q", sent))
			return nil
		case sent != p.remLines[i].Content:
			div(fmt.Sprintf("reminder sent: %q", p.remLines[i].Content), fmt.Sprintf("reminder sent: %q", sent))
			return nil
		}
	}
	if n := len(p.remSent); n < len(p.remLines) {
		want := p.remLines[n]
		div(fmt.Sprintf("reminder sent at %s: %q", want.Time.Format(time.RFC3339), want.Content), "no reminder due then")
	}
	return nil
}

// reminderSent records a send of the reminder loop and returns the
// platform id the recording gave it.
func (p *player) reminderSent(out state.Outgoing) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.remSent)
	p.remSent = append(p.remSent, out.Content)
	if n < len(p.remLines) && p.remLines[n].MessageID != "" {
		return p.remLines[n].MessageID
	}
	return fmt.Sprintf("replay-reminder-%d", n+1)
}

// isStepping reports whether the reminder loop is running, so that a send
// outside a model call is the loop's.
func (p *player) isStepping() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stepping
}

// ticksBefore returns how many recorded ticks come before item i.
func (p *player) ticksBefore(i int) int {
	n := 0
	for n < len(p.pos) && p.pos[n] < i {
		n++
	}
	return n
}
