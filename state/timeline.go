package state

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Tick outcomes, as Tick.Outcome names them and TimelineQuery filters them.
const (
	// OutcomeSent is a tick whose action sent a message.
	OutcomeSent = "sent"
	// OutcomeSilent is a tick whose action ran and sent nothing.
	OutcomeSilent = "silent"
	// OutcomeParseError is a tick whose answer gave no valid action.
	OutcomeParseError = "parse-error"
	// OutcomeModelError is a tick whose model call failed or was interrupted.
	OutcomeModelError = "model-error"
)

// Outcomes lists every tick outcome, in the order the inspector offers them.
func Outcomes() []string {
	return []string{OutcomeSent, OutcomeSilent, OutcomeParseError, OutcomeModelError}
}

// sendEffect is how a send appears in a tick's recorded effects; the store
// engines classify stored ticks with the same test, in SQL.
const sendEffect = `"kind":"send"`

// Outcome classifies the tick: a model error first, then a parse error,
// then whether its effects hold a send.
func (t Tick) Outcome() string {
	switch {
	case t.ModelError != "":
		return OutcomeModelError
	case t.ParseError != "":
		return OutcomeParseError
	case bytes.Contains(t.Effects, []byte(sendEffect)):
		return OutcomeSent
	default:
		return OutcomeSilent
	}
}

// TimelinePos is a position in a timeline. Items are ordered by Time, then
// messages before ticks, then by id; the zero position stands for "after
// the newest item".
type TimelinePos struct {
	Time time.Time
	Tick bool
	ID   int64
}

// MessageBound is the id bound of messages at the cursor's time: messages
// come before ticks of the same time, so a tick cursor keeps all of them.
func (p TimelinePos) MessageBound() int64 {
	if p.Tick {
		return math.MaxInt64
	}
	return p.ID
}

// TickBound is the id bound of ticks at the cursor's time: a message
// cursor keeps none of them.
func (p TimelinePos) TickBound() int64 {
	if p.Tick {
		return p.ID
	}
	return 0
}

// IsZero reports whether p is the zero position.
func (p TimelinePos) IsZero() bool { return p.Time.IsZero() && !p.Tick && p.ID == 0 }

// Before reports whether p comes before q in timeline order.
func (p TimelinePos) Before(q TimelinePos) bool {
	if !p.Time.Equal(q.Time) {
		return p.Time.Before(q.Time)
	}
	if p.Tick != q.Tick {
		return !p.Tick
	}
	return p.ID < q.ID
}

// TimelineItem is one entry of a timeline: a message or a tick.
type TimelineItem struct {
	// Message is set when the item is a message.
	Message *Message
	// Tick is set when the item is a tick. Its Request and Sections are
	// left out: a timeline page carries what happened, not the prompts.
	Tick *Tick
}

// Pos returns the item's position in the timeline.
func (it TimelineItem) Pos() TimelinePos {
	if it.Tick != nil {
		return TimelinePos{Time: it.Tick.Now, Tick: true, ID: it.Tick.ID}
	}
	if it.Message != nil {
		return TimelinePos{Time: it.Message.Time, ID: it.Message.ID}
	}
	return TimelinePos{}
}

// MaxTimelineLimit bounds one timeline page.
const MaxTimelineLimit = 500

// TimelineQuery selects one page of a timeline: the newest Limit items
// before Before, newest first.
type TimelineQuery struct {
	// ChannelID selects one channel; empty means every channel, which
	// needs Outcome or Text.
	ChannelID string
	// Before, when set, keeps only items strictly before it: the position
	// of the last item of the previous page.
	Before TimelinePos
	// Limit is the page size, 1 to MaxTimelineLimit.
	Limit int
	// Outcome, when set, keeps only ticks of that outcome (no messages).
	Outcome string
	// Text, when set, keeps only messages whose content contains it,
	// ignoring the case of ASCII letters (no ticks).
	Text string
}

// Validate reports what is wrong with the query.
func (q TimelineQuery) Validate() error {
	var errs []error
	if q.Limit < 1 || q.Limit > MaxTimelineLimit {
		errs = append(errs, fmt.Errorf("timeline: limit %d is not between 1 and %d", q.Limit, MaxTimelineLimit))
	}
	if q.Outcome != "" && q.Text != "" {
		errs = append(errs, errors.New("timeline: outcome selects ticks and text selects messages; set one of them"))
	}
	if q.Outcome != "" {
		if !slices.Contains(Outcomes(), q.Outcome) {
			errs = append(errs, fmt.Errorf("timeline: unknown outcome %q (want one of %s)", q.Outcome, strings.Join(Outcomes(), ", ")))
		}
	}
	if q.ChannelID == "" && q.Outcome == "" && q.Text == "" {
		errs = append(errs, errors.New("timeline: name a channel, or filter by outcome or text"))
	}
	return errors.Join(errs...)
}

// Messages reports whether the query selects messages.
func (q TimelineQuery) Messages() bool { return q.Outcome == "" }

// Ticks reports whether the query selects ticks.
func (q TimelineQuery) Ticks() bool { return q.Text == "" }

// MergeTimeline merges messages and ticks, each newest first, into one
// page of at most limit items, newest first. Engines query each kind with
// the same limit and merge with it.
func MergeTimeline(msgs []Message, ticks []Tick, limit int) []TimelineItem {
	out := make([]TimelineItem, 0, min(limit, len(msgs)+len(ticks)))
	i, j := 0, 0
	for len(out) < limit && (i < len(msgs) || j < len(ticks)) {
		var m, t TimelineItem
		if i < len(msgs) {
			m = TimelineItem{Message: &msgs[i]}
		}
		if j < len(ticks) {
			t = TimelineItem{Tick: &ticks[j]}
		}
		switch {
		case m.Message == nil:
			out, j = append(out, t), j+1
		case t.Tick == nil || t.Pos().Before(m.Pos()):
			out, i = append(out, m), i+1
		default:
			out, j = append(out, t), j+1
		}
	}
	return out
}

// ChannelActivity is the latest activity of one channel.
type ChannelActivity struct {
	ChannelID string
	// LastMessage is the time of the channel's newest message (zero: none).
	LastMessage time.Time
	// LastTickID, LastTick and LastOutcome describe the newest tick
	// (LastTickID 0: none).
	LastTickID  int64
	LastTick    time.Time
	LastOutcome string
}
