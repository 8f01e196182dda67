package runtime

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/scheduler/eval"
	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
	"github.com/airi-go/airi/tools"
)

// SessionConfig is cfg set up to run a recorded session as it ran, for
// replay and eval alike: what the session's header names replaces what
// is configured, and the loop's delays are off (replay drives the wakes
// itself, eval lets the delays pass on its own clock).
//
// The header is the record of the settings the session ran under, so it
// wins over the configuration wherever it speaks, also when it says
// "unset": an empty bot name is the persona's name, no language is the
// users' language, no allowed channels is all of them. A zero that the
// format omits means the runtime's default, not the operator's setting;
// interrupt, always written, is taken as written. The format omits
// sendUser when false, so its absence means the default (on); it decides
// only the request's user field, which replay does not compare. A
// session that names no group mode predates them and woke on every
// message; one that names no turn semantics ran under the earlier ones.
// The rest of the attention policy is the defaults, the same for every
// channel. Budgets are not replayed: they would only cut a run short.
// Tools are not configured: a replay starts no server, and the rules of
// who may use a tool are the header's.
func SessionConfig(cfg Config, h *replay.Header) Config {
	st := h.Settings
	cfg.BotName = st.BotName
	cfg.Language = st.Language
	cfg.History = cmp.Or(st.History, planner.DefaultHistoryLimit)
	cfg.MaxIterations = cmp.Or(st.MaxIterations, scheduler.DefaultMaxIterations)
	cfg.Interrupt = st.Interrupt
	cfg.SleepMax = actions.DefaultSleepMax
	if st.SleepMaxMS > 0 {
		cfg.SleepMax = time.Duration(st.SleepMaxMS) * time.Millisecond
	}
	cfg.SendUser = true
	cfg.AllowChannels = st.AllowChannels
	cfg.Turn = h.TurnSemantics()
	cfg.ContinueDelay = 0
	cfg.Attention = attention.Policy{Default: attention.Defaults()}
	cfg.Attention.Default.Mode = attention.Mode(h.AttentionMode())
	cfg.Budget = noBudget(cfg.Budget)
	// A session is played from its record: no tool server is started;
	// a session that ran with tools gets its catalog (Deps.Tools) and
	// its rules from the header.
	cfg.Tools = tools.Config{}
	if h.Tools != nil {
		cfg.Tools.Policy = sessionPolicy(h.Tools)
	}
	return cfg
}

// noBudget is c without any limit, in c's time zone.
func noBudget(c budget.Config) budget.Config {
	c.Daily, c.ChannelDaily, c.Channels = 0, 0, nil
	return c
}

// ReplayOpener opens, for each session, the bot configured by cfg on a
// fresh SQLite store in a temporary directory, with the session's
// recorded settings (SessionConfig) and the replay's model, clock and
// adapter.
func ReplayOpener(cfg Config, log *zap.Logger) replay.Opener {
	return func(ctx context.Context, w replay.Wiring) (replay.Runtime, error) {
		deps := Deps{Model: w.Model, Adapters: []Adapter{{Sender: w.Sender}}, Now: w.Now, OnTick: w.OnTick, Logger: log}
		if w.Header.Tools != nil {
			box, err := newRecordedTools(w.Header.Tools, w.Tools)
			if err != nil {
				return nil, err
			}
			deps.Tools = box
		}
		b, dir, err := openScratch(ctx, SessionConfig(cfg, w.Header), "airi-replay-*", deps)
		if err != nil {
			return nil, err
		}
		return &sessionBot{b: b, dir: dir}, nil
	}
}

// EvalOpener opens, for each run, the bot configured by cfg on a fresh
// SQLite store in a temporary directory, with the session's settings
// (SessionConfig), the live model, the engine's clock and its adapter.
func EvalOpener(cfg Config, model planner.Model, log *zap.Logger) eval.Opener {
	return func(ctx context.Context, w eval.Wiring) (eval.Runtime, error) {
		b, dir, err := openScratch(ctx, SessionConfig(cfg, w.Header), "airi-eval-*", Deps{
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

// DeliverReaction stores a reaction as the adapters' inbox does: one to
// a message that is not the bot's is dropped, and none wakes the channel.
func (r *sessionBot) DeliverReaction(ctx context.Context, ch state.Channel, x state.Reaction) error {
	x.ChannelID = ch.ID
	if err := x.Validate(); err != nil {
		return fmt.Errorf("deliver reaction: %w", err)
	}
	if _, err := r.b.store.AddReaction(ctx, x); err != nil {
		return fmt.Errorf("deliver reaction: %w", err)
	}
	return nil
}

func (r *sessionBot) Wake(ctx context.Context, channelID string, trigger scheduler.Trigger) scheduler.WakeReport {
	return r.b.sched.Wake(ctx, channelID, trigger)
}

// NextDue is the scheduler's next wake, or a reminder falling due before
// it: an engine stepping a virtual clock delivers reminders on it too.
func (r *sessionBot) NextDue() (string, time.Time, string, bool) {
	id, at, trig, ok := r.b.sched.NextDue()
	if rem, rok := r.b.nextReminder(); rok && (!ok || rem.Due.Before(at)) {
		return rem.ChannelID, rem.Due, string(scheduler.TriggerScheduled), true
	}
	return id, at, trig, ok
}

// StepReminders delivers the reminders due at the session's clock.
func (r *sessionBot) StepReminders(ctx context.Context) (int, error) { return r.b.due.Step(ctx) }

func (r *sessionBot) RunDue(ctx context.Context, id string) (scheduler.WakeReport, bool) {
	return r.b.runDueReminders(ctx, id)
}

func (r *sessionBot) PeriodicTick(ctx context.Context) error { return r.b.sched.PeriodicTick(ctx) }

func (r *sessionBot) Idle(ctx context.Context) (bool, error) { return r.b.sched.Idle(ctx) }

func (r *sessionBot) Unread(ctx context.Context, id string) ([]state.Message, error) {
	return r.b.store.Unread(ctx, id, 0)
}

// Store is the bot's store, for a test to read what the run left in it
// before Close removes it.
func (r *sessionBot) Store() state.Store { return r.b.store }

func (r *sessionBot) Close() error {
	_ = r.b.Close(context.Background())
	return os.RemoveAll(r.dir)
}

var (
	_ replay.Runtime = (*sessionBot)(nil)
	_ eval.Runtime   = (*sessionBot)(nil)
)
