package runtime

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/scheduler/eval"
	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// ReplayConfig is cfg with the recorded settings of a session applied and
// the loop's delays off: replay drives wakes itself.
func ReplayConfig(cfg Config, h *replay.Header) Config {
	st := h.Settings
	cfg.BotName = st.BotName
	cfg.Language = st.Language
	if st.History > 0 {
		cfg.History = st.History
	}
	if st.MaxIterations > 0 {
		cfg.MaxIterations = st.MaxIterations
	}
	cfg.Interrupt = st.Interrupt
	if st.SleepMaxMS > 0 {
		cfg.SleepMax = time.Duration(st.SleepMaxMS) * time.Millisecond
	}
	cfg.SendUser = st.SendUser
	cfg.AllowChannels = st.AllowChannels
	cfg.Turn = h.TurnSemantics()
	cfg.ContinueDelay = 0
	// Replay wakes the channel as the recording did; the group mode only
	// decides what the prompts say. Budgets are not replayed.
	cfg.Attention = attention.Policy{Default: attention.Defaults()}
	cfg.Attention.Default.Mode = attention.Mode(h.AttentionMode())
	cfg.Budget = noBudget(cfg.Budget)
	return cfg
}

// EvalConfig applies what a session's header sets: the bot's name, the
// language, the history window, the iteration cap, the channels allowed,
// the turn semantics and the group mode. What it leaves out stays as
// configured. The bot must not wait between ticks: the eval engine lets
// the continue delay pass on its clock.
func EvalConfig(cfg Config, h *replay.Header) Config {
	st := h.Settings
	if st.BotName != "" {
		cfg.BotName = st.BotName
	}
	if st.Language != "" {
		cfg.Language = st.Language
	}
	if st.History > 0 {
		cfg.History = st.History
	}
	if st.MaxIterations > 0 {
		cfg.MaxIterations = st.MaxIterations
	}
	if len(st.AllowChannels) > 0 {
		cfg.AllowChannels = st.AllowChannels
	}
	if h.Turn != "" {
		cfg.Turn = scheduler.Turn(h.Turn)
	}
	// A session that names its group mode is scored under it, so that its
	// labels mean the same whatever the operator configured; budgets would
	// only cut a run short.
	if h.Attention != "" {
		cfg.Attention.Channels = maps.Clone(cfg.Attention.Channels)
		for id, set := range cfg.Attention.Channels {
			set.Mode = attention.Mode(h.Attention)
			cfg.Attention.Channels[id] = set
		}
		cfg.Attention.Default.Mode = attention.Mode(h.Attention)
	}
	cfg.Budget = noBudget(cfg.Budget)
	cfg.ContinueDelay = 0
	return cfg
}

// noBudget is c without any limit, in c's time zone.
func noBudget(c budget.Config) budget.Config {
	c.Daily, c.ChannelDaily, c.Channels = 0, 0, nil
	return c
}

// ReplayOpener opens, for each session, the bot configured by cfg on a
// fresh SQLite store in a temporary directory, with the session's
// recorded settings (ReplayConfig) and the replay's model, clock and
// adapter.
func ReplayOpener(cfg Config, log *zap.Logger) replay.Opener {
	return func(ctx context.Context, w replay.Wiring) (replay.Runtime, error) {
		b, dir, err := openScratch(ctx, ReplayConfig(cfg, w.Header), "airi-replay-*", Deps{
			Model: w.Model, Adapters: []Adapter{{Sender: w.Sender}}, Now: w.Now, OnTick: w.OnTick, Logger: log,
		})
		if err != nil {
			return nil, err
		}
		return &sessionBot{b: b, dir: dir}, nil
	}
}

// EvalOpener opens, for each run, the bot configured by cfg on a fresh
// SQLite store in a temporary directory, with the session's settings
// (EvalConfig), the live model, the engine's clock and its adapter.
func EvalOpener(cfg Config, model planner.Model, log *zap.Logger) eval.Opener {
	return func(ctx context.Context, w eval.Wiring) (eval.Runtime, error) {
		b, dir, err := openScratch(ctx, EvalConfig(cfg, w.Header), "airi-eval-*", Deps{
			Model: model, Adapters: []Adapter{{Sender: w.Sender}}, Now: w.Now, OnTick: w.OnTick, Logger: log,
		})
		if err != nil {
			return nil, err
		}
		return &sessionBot{b: b, dir: dir}, nil
	}
}

// openScratch opens the bot on a fresh SQLite store in a temporary
// directory; the caller removes the directory after closing the bot.
func openScratch(ctx context.Context, cfg Config, pattern string, deps Deps) (*Bot, string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return nil, "", fmt.Errorf("make temporary store: %w", err)
	}
	deps.Store, err = sqlite.Open(ctx, filepath.Join(dir, "airi.db"), deps.Logger)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, "", err
	}
	b, err := New(cfg, deps)
	if err != nil {
		// New closed the store.
		_ = os.RemoveAll(dir)
		return nil, "", err
	}
	return b, dir, nil
}

// sessionBot is a bot opened for one replay or one eval run, stepped by
// the engine and never started.
type sessionBot struct {
	b   *Bot
	dir string
}

func (r *sessionBot) Deliver(ctx context.Context, ch state.Channel, msg state.Message) error {
	return r.b.sched.Deliver(ctx, ch, msg)
}

func (r *sessionBot) Wake(ctx context.Context, channelID string, trigger scheduler.Trigger) scheduler.WakeReport {
	return r.b.sched.Wake(ctx, channelID, trigger)
}

func (r *sessionBot) NextDue() (string, time.Time, string, bool) { return r.b.sched.NextDue() }

func (r *sessionBot) RunDue(ctx context.Context, id string) (scheduler.WakeReport, bool) {
	return r.b.sched.RunDue(ctx, id)
}

func (r *sessionBot) PeriodicTick(ctx context.Context) error { return r.b.sched.PeriodicTick(ctx) }

func (r *sessionBot) Idle(ctx context.Context) (bool, error) { return r.b.sched.Idle(ctx) }

func (r *sessionBot) Unread(ctx context.Context, id string) ([]state.Message, error) {
	return r.b.store.Unread(ctx, id, 0)
}

func (r *sessionBot) Close() error {
	_ = r.b.Close(context.Background())
	return os.RemoveAll(r.dir)
}

var (
	_ replay.Runtime = (*sessionBot)(nil)
	_ eval.Runtime   = (*sessionBot)(nil)
)
