// Package budget keeps the daily token budgets of the model calls: one
// for all channels together and one for each channel. Usage is counted
// from what the provider reports, per calendar day in a configured time
// zone, and kept in the store so that a restart keeps the count.
//
// A channel whose budget (or the global one) is 80% used falls back to
// being woken only when addressed; at 100% no call is made until the day
// rolls over. A call is admitted while the budget is not used up, so at
// most one call goes past it: near the global limit, calls of different
// channels are admitted one at a time.
package budget

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"
)

// Store keeps token counts per day and scope.
type Store interface {
	// AddTokens adds n tokens to the count of scope on day and returns the new count.
	AddTokens(ctx context.Context, day, scope string, n int64) (int64, error)
	// Tokens returns the count of scope on day, 0 when none was added.
	Tokens(ctx context.Context, day, scope string) (int64, error)
}

// Global is the scope of the budget shared by every channel; any other
// scope is a channel id.
const Global = "*"

// Level says how much of the budgets that apply to a channel is used.
type Level int

// Levels, in increasing order.
const (
	// Normal: under FallbackShare of every budget.
	Normal Level = iota
	// Fallback: a budget is FallbackShare used; group channels are woken
	// only when addressed.
	Fallback
	// Exhausted: a budget is used up; no model call until the day rolls over.
	Exhausted
)

// FallbackShare is the share of a budget at which channels fall back.
const FallbackShare = 0.8

// Config sets the budgets. Zero means no budget.
type Config struct {
	// Daily is the budget of all channels together, in tokens a day.
	Daily int64
	// ChannelDaily is each channel's budget, in tokens a day.
	ChannelDaily int64
	// Channels overrides ChannelDaily for some channels (0: none for that channel).
	Channels map[string]int64
	// Location is the zone whose calendar days the budgets count [UTC].
	Location *time.Location
}

// Enabled reports whether any budget is set.
func (c Config) Enabled() bool {
	if c.Daily > 0 || c.ChannelDaily > 0 {
		return true
	}
	for _, n := range c.Channels {
		if n > 0 {
			return true
		}
	}
	return false
}

// Tracker enforces the budgets. It is safe for concurrent use.
type Tracker struct {
	cfg   Config
	store Store
	log   *zap.Logger
	// OnUse, when set, is told the use and limit of a scope after each charge.
	onUse func(scope string, used, limit int64)

	mu   sync.Mutex
	day  string
	used map[string]int64 // scope → tokens today, loaded from the store on first use
}

// New returns a tracker; onUse may be nil.
func New(cfg Config, store Store, log *zap.Logger, onUse func(scope string, used, limit int64)) *Tracker {
	if cfg.Location == nil {
		cfg.Location = time.UTC
	}
	if log == nil {
		log = zap.NewNop()
	}
	return &Tracker{cfg: cfg, store: store, log: log.Named("budget"), onUse: onUse, used: map[string]int64{}}
}

// Day returns the budget day of t.
func (t *Tracker) Day(now time.Time) string { return now.In(t.cfg.Location).Format(time.DateOnly) }

// Limit returns the budget of a scope (0: none).
func (t *Tracker) Limit(scope string) int64 {
	if scope == Global {
		return t.cfg.Daily
	}
	if n, ok := t.cfg.Channels[scope]; ok {
		return n
	}
	return t.cfg.ChannelDaily
}

// usedLocked returns a scope's use on day, from the store the first time.
func (t *Tracker) usedLocked(ctx context.Context, day, scope string) (int64, error) {
	if day != t.day {
		t.day, t.used = day, map[string]int64{}
	}
	if n, ok := t.used[scope]; ok {
		return n, nil
	}
	n, err := t.store.Tokens(ctx, day, scope)
	if err != nil {
		return 0, fmt.Errorf("read token use of %q on %s: %w", scope, day, err)
	}
	t.used[scope] = n
	return n, nil
}

func level(used, limit int64) Level {
	switch {
	case limit <= 0:
		return Normal
	case used >= limit:
		return Exhausted
	case float64(used) >= FallbackShare*float64(limit):
		return Fallback
	}
	return Normal
}

// Level returns the level of a channel at now: the higher of the global
// budget's and the channel's.
func (t *Tracker) Level(ctx context.Context, channelID string, now time.Time) (Level, error) {
	g, err := t.scopeLevel(ctx, Global, now)
	if err != nil {
		return Normal, err
	}
	c, err := t.scopeLevel(ctx, channelID, now)
	if err != nil {
		return Normal, err
	}
	return max(g, c), nil
}

func (t *Tracker) scopeLevel(ctx context.Context, scope string, now time.Time) (Level, error) {
	limit := t.Limit(scope)
	if limit <= 0 {
		return Normal, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	used, err := t.usedLocked(ctx, t.Day(now), scope)
	if err != nil {
		return Normal, err
	}
	return level(used, limit), nil
}

// Admit reports whether a model call of channelID may be made at now,
// and reserves its estimated cost (the request's tokens as counted plus
// the most the answer may take) in the store before the call starts: in
// the count every replica shares, so that calls running at once, here or
// in other replicas, see each other's reservations. A call is admitted
// while the count before its own reservation is under each budget, so at
// most one call's reservation goes past a budget. When ok, the caller
// makes the call and then calls release with the tokens it cost (0 when
// it cost none), which settles the reservation to that; a crash before
// release leaves the reservation counted.
func (t *Tracker) Admit(ctx context.Context, channelID string, now time.Time, estimate int64) (release func(tokens int64), ok bool, err error) {
	if lvl, err := t.Level(ctx, channelID, now); err != nil || lvl == Exhausted {
		return nil, false, err
	}
	estimate = max(estimate, 0)
	day := t.Day(now)
	var reserved []string
	refund := func() {
		for _, scope := range reserved {
			t.add(context.WithoutCancel(ctx), day, scope, -estimate)
		}
	}
	for _, scope := range []string{Global, channelID} {
		total, err := t.add(ctx, day, scope, estimate)
		if err != nil {
			refund()
			return nil, false, err
		}
		reserved = append(reserved, scope)
		if limit := t.Limit(scope); limit > 0 && total-estimate >= limit {
			refund()
			return nil, false, nil
		}
	}
	var once sync.Once
	return func(tokens int64) {
		once.Do(func() { t.settle(context.WithoutCancel(ctx), channelID, now, estimate, max(tokens, 0)) })
	}, true, nil
}

// add adds n to a scope's count in the store and remembers the new count.
func (t *Tracker) add(ctx context.Context, day, scope string, n int64) (int64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n == 0 {
		return t.usedLocked(ctx, day, scope)
	}
	total, err := t.store.AddTokens(ctx, day, scope, n)
	if err != nil {
		return 0, fmt.Errorf("reserve tokens of %q on %s: %w", scope, day, err)
	}
	if day != t.day {
		t.day, t.used = day, map[string]int64{}
	}
	t.used[scope] = total
	return total, nil
}

// settle turns a call's reservation into what it cost, in the global
// and the channel's count, and logs a threshold crossed.
func (t *Tracker) settle(ctx context.Context, channelID string, now time.Time, reserved, tokens int64) {
	day := t.Day(now)
	for _, scope := range []string{Global, channelID} {
		after, err := t.add(ctx, day, scope, tokens-reserved)
		if err != nil {
			t.log.Error("store token use", zap.String("scope", scope), zap.Error(err))
			continue
		}
		before := after - tokens
		limit := t.Limit(scope)
		if t.onUse != nil && tokens > 0 {
			t.onUse(scope, after, limit)
		}
		if from, to := level(before, limit), level(after, limit); to > from {
			t.logCrossing(scope, to, after, limit, now)
		}
	}
}

func (t *Tracker) logCrossing(scope string, to Level, used, limit int64, now time.Time) {
	what := "channel " + scope
	if scope == Global {
		what = "all channels"
	}
	next := t.nextDay(now)
	switch to {
	case Fallback:
		t.log.Warn("token budget 80% used: groups are woken only when addressed until the day rolls over",
			zap.String("budget", what), zap.Int64("used", used), zap.Int64("limit", limit), zap.Time("until", next))
	case Exhausted:
		t.log.Warn("token budget used up: no model call until the day rolls over; addressed messages wait unread",
			zap.String("budget", what), zap.Int64("used", used), zap.Int64("limit", limit), zap.Time("until", next))
	}
}

// nextDay returns the start of the budget day after now's.
func (t *Tracker) nextDay(now time.Time) time.Time {
	l := now.In(t.cfg.Location)
	return time.Date(l.Year(), l.Month(), l.Day()+1, 0, 0, 0, 0, t.cfg.Location)
}

// Use returns today's use and the limit of every scope with a budget
// that has been used or looked at, for the metrics.
func (t *Tracker) Use(ctx context.Context, now time.Time, channels []string) map[string][2]int64 {
	out := map[string][2]int64{}
	day := t.Day(now)
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, scope := range append([]string{Global}, channels...) {
		limit := t.Limit(scope)
		if limit <= 0 {
			continue
		}
		used, err := t.usedLocked(ctx, day, scope)
		if err != nil {
			continue
		}
		out[scope] = [2]int64{used, limit}
	}
	return out
}
