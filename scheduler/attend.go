package scheduler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state"
)

// attendance is a loop's attention state; the loop's mu guards it.
type attendance struct {
	ch    attention.Channel
	group bool
	// want is the newest message that asked for a wake, served the newest
	// shown in a request the model answered: a wake is owed while want > served.
	want, served int64
	// held: a wake is owed but the budget refused it.
	held bool
}

// fromMessage triggers start on an incoming message (after the debounce).
func fromMessage(t Trigger) bool {
	switch t {
	case TriggerMessage, TriggerDirect, TriggerAmbient,
		TriggerAddressedMention, TriggerAddressedReply, TriggerAddressedAlias:
		return true
	}
	return false
}

// rank orders message triggers: an addressed message names the wake
// rather than the talk that came before it in the same debounce.
func rank(t Trigger) int {
	switch {
	case strings.HasPrefix(string(t), "addressed:"):
		return 3
	case t == TriggerDirect:
		return 2
	}
	return 1
}

// settings returns the attention settings of the loop's channel at now:
// the configured ones, in fallback to addressed when a budget is 80% used.
func (s *Scheduler) settings(ctx context.Context, id string, now time.Time) (attention.Settings, budget.Level) {
	set := s.attentionFor(ctx, id)
	lvl := s.budgetLevel(ctx, id, now)
	if lvl >= budget.Fallback && set.Mode != attention.ModeAddressed {
		set.Mode = attention.ModeAddressed
	}
	return set, lvl
}

// attentionFor returns the configured attention settings of a channel,
// with the mode an operator set for it ("/airi mode", stored as the
// channel's control) in place of the configured one.
func (s *Scheduler) attentionFor(ctx context.Context, id string) attention.Settings {
	set := s.withCurrentName(s.cfg.Attention.For(id))
	if s.deps.Controls == nil {
		return set
	}
	c, err := s.deps.Controls.ChannelControl(ctx, id)
	if err != nil {
		s.log.Warn("read channel control", s.chat(id), zap.Error(err))
		return set
	}
	if c.Mode != "" {
		set.Mode = attention.Mode(c.Mode)
	}
	return set
}

func (s *Scheduler) budgetLevel(ctx context.Context, id string, now time.Time) budget.Level {
	if s.deps.Budget == nil {
		return budget.Normal
	}
	lvl, err := s.deps.Budget.Level(ctx, id, now)
	if err != nil {
		s.log.Warn("read token budget", s.chat(id), zap.Error(err))
	}
	return lvl
}

// attend decides whether an incoming message wakes the channel.
func (l *loop) attend(ctx context.Context, group bool, m state.Message) attention.Decision {
	now := l.s.cfg.Now()
	var (
		set attention.Settings
		lvl budget.Level
	)
	if group {
		set, lvl = l.s.settings(ctx, l.id, now)
	} else {
		// Every message of a direct chat wakes it, whatever the settings
		// and the operator's mode: only the budget is read.
		lvl = l.s.budgetLevel(ctx, l.id, now)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.att.group = group
	d := l.att.ch.Decide(&set, attention.Message{
		SenderID: m.SenderID, Content: m.Content, Time: now, Group: group,
		Mentioned: m.Mentioned, ReplyToSelf: m.ReplyToSelf, FromBot: m.FromBot,
	})
	if !d.Wake {
		return d
	}
	l.att.want = max(l.att.want, m.ID)
	if lvl == budget.Exhausted {
		// Answered once the budget allows: the message stays unread.
		l.att.held = true
		return attention.Decision{Reason: attention.SkipBudget}
	}
	return d
}

// reconsider runs the attention decision over a channel's unread messages
// after a restart and reports whether any of them wakes it.
func (s *Scheduler) reconsider(ctx context.Context, id string) (bool, error) {
	if s.cfg.Attention == nil {
		return true, nil
	}
	ch, err := s.deps.Store.Channel(ctx, id)
	if errors.Is(err, state.ErrNotFound) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up channel %q at start: %w", id, err)
	}
	unread, err := s.deps.Store.Unread(ctx, id, 0)
	if err != nil {
		return false, fmt.Errorf("read unread of %q at start: %w", id, err)
	}
	l := s.loopFor(id)
	wake := false
	for _, m := range unread {
		d := l.attend(ctx, ch.Group, m)
		// The decision of now replaces the one made at arrival: it is the
		// one the message waits under.
		s.decided(ctx, m, d.Reason)
		if d.Wake {
			wake = true
		}
	}
	return wake, nil
}

// periodicTrigger returns why the periodic tick wakes the channel, or ""
// when nothing in it would: a wake still owed (held by the budget until
// it allows again), or an ambient wake the gap held back.
func (l *loop) periodicTrigger(ctx context.Context) Trigger {
	s := l.s
	if s.cfg.Attention == nil {
		return TriggerPeriodic
	}
	now := s.cfg.Now()
	set, lvl := s.settings(ctx, l.id, now)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.att.want > l.att.served {
		if !l.att.held {
			return TriggerPeriodic
		}
		if lvl == budget.Exhausted {
			return ""
		}
		l.att.held = false
		return TriggerBudgetResume
	}
	if l.att.group && lvl < budget.Exhausted && l.att.ch.AmbientDue(&set, now) {
		return TriggerAmbient
	}
	return ""
}

// wanted reports a wake owed to the channel that the budget does not hold.
func (l *loop) wanted() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.att.want > l.att.served && !l.att.held
}

// called records a model call of the channel and the newest message it showed.
func (l *loop) called(now time.Time, shown []state.Message) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.att.ch.Called(now)
	for _, m := range shown {
		l.att.served = max(l.att.served, m.ID)
	}
}

// spoke records a message the bot sent in the channel.
func (l *loop) spoke(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.att.ch.Spoke(now)
}

// holdForBudget records a wake or a call the budget refused, in the
// store too, so that the refusal is there to see beside the ticks.
func (l *loop) holdForBudget(ctx context.Context, trig Trigger) {
	l.mu.Lock()
	l.att.held = true
	l.mu.Unlock()
	l.s.skipped(l.id, attention.SkipBudget)
	_, err := l.s.deps.Store.AddSkippedWake(ctx, state.SkippedWake{
		ChannelID: l.id, Trigger: string(trig), Reason: attention.SkipBudget, Time: l.s.cfg.Now(),
	})
	if err != nil {
		l.s.log.Warn("record a wake the budget refused", l.s.chat(l.id), zap.Error(err))
	}
}

// decided records the attention decision on a message. The message is
// stored whatever happens here, so a failure is logged, not returned.
func (s *Scheduler) decided(ctx context.Context, m state.Message, decision string) {
	if m.Decision == decision {
		return
	}
	if err := s.deps.Store.SetDecision(ctx, []int64{m.ID}, decision); err != nil {
		s.log.Warn("record the attention decision", s.chat(m.ChannelID),
			zap.Int64("message", m.ID), zap.String("decision", decision), zap.Error(err))
	}
}

func (s *Scheduler) skipped(id, reason string) {
	if s.deps.OnSkip != nil {
		s.deps.OnSkip(id, reason)
	}
	s.log.Debug("not woken", s.chat(id), zap.String("reason", reason))
}

// estimate counts the tokens of text when the provider reported none.
func (s *Scheduler) estimate(text string) int {
	if s.deps.Tokens != nil {
		return s.deps.Tokens(text)
	}
	return (len(text) + 3) / 4
}
