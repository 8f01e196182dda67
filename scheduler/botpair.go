package scheduler

import (
	"context"

	"github.com/airi-go/airi/actions"

	"go.uber.org/zap"

	"github.com/airi-go/airi/state"
)

// botsHeld reports whether the wake's next model call is refused because
// the newest message of the group is another bot's and the bot-to-bot
// bounds are used up (the reply cap, or the pair's budget), recording the
// reason as a skipped wake. It is asked before every call after the first
// once the wake has answered what it delivered: the call would be made
// for the other bot's messages alone.
func (l *loop) botsHeld(ctx context.Context, trig Trigger) bool {
	s := l.s
	if s.cfg.Attention == nil {
		return false
	}
	l.mu.Lock()
	group := l.att.group
	l.mu.Unlock()
	if !group {
		return false
	}
	now := s.cfg.Now()
	set, _ := s.settings(ctx, l.id, now)
	l.mu.Lock()
	reason := l.att.ch.HoldsBots(&set, now)
	l.mu.Unlock()
	if reason == "" {
		return false
	}
	s.skipped(l.id, reason)
	s.log.Info("wake stopped before a call for another bot's messages", zap.String("channel", l.id), zap.String("reason", reason))
	if _, err := s.deps.Store.AddSkippedWake(ctx, state.SkippedWake{
		ChannelID: l.id, Trigger: string(trig), Reason: reason, Time: now,
	}); err != nil {
		s.log.Warn("record a call refused for another bot", zap.String("channel", l.id), zap.Error(err))
	}
	return true
}

// holdForBots refuses a send to the channel itself, decided while the
// exchange with another bot reached its bounds: the other bot posted
// again while this call ran, and its message closed the pair's budget,
// so the answer would be one exchange past it. A wake that showed a
// person's message sends its answers all the same (a first one may have
// been aborted by the bot's message).
func (t *tick) holdForBots(ctx context.Context, a actions.Action) (actions.Result, bool) {
	if a.Name != actions.NameSendMessage || t.l.s.cfg.Attention == nil {
		return actions.Result{}, false
	}
	if p, ok := sendParams(a); ok && p.ChannelID != t.l.id {
		return actions.Result{}, false
	}
	for _, m := range t.incoming {
		if !m.Self && !m.FromBot {
			t.w.person = true
		}
	}
	if t.w.person {
		return actions.Result{}, false // the wake answers a person
	}
	if !t.l.botsHeld(ctx, TriggerMessage) {
		return actions.Result{}, false
	}
	return actions.Result{Text: "not sent: this chat's exchange with another bot reached its bounds while you decided; only a person's message wakes you here for a while"}, true
}

// sendParams returns a send's parameters.
func sendParams(a actions.Action) (actions.SendMessage, bool) {
	switch p := a.Params.(type) {
	case actions.SendMessage:
		return p, true
	case *actions.SendMessage:
		return *p, p != nil
	}
	return actions.SendMessage{}, false
}
