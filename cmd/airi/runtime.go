package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/parse"
	"github.com/airi-go/airi/planner/tokens"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state"
)

// sender is what the runtime needs of an adapter to send through it.
type sender interface {
	Name() string
	Send(ctx context.Context, out state.Outgoing) (string, error)
}

// typer is the optional typing indicator of an adapter.
type typer interface {
	Typing(ctx context.Context, channelID string) error
}

// router sends each message through the adapter of its channel. With
// several adapters, every channel id the model sees is "platform:id": the
// adapter's name, or for an adapter that qualifies its own ids (Satori,
// with the platform of each login) whatever it reports.
type router struct {
	adapters []sender
	// selfQualified names the adapters whose ids already carry a platform.
	selfQualified map[string]bool
}

func (r *router) multi() bool { return len(r.adapters) > 1 }

// qualify returns the id the model sees for an adapter's own channel id.
func (r *router) qualify(adapter, id string) string {
	if r.multi() && !r.selfQualified[adapter] {
		return adapter + ":" + id
	}
	return id
}

// resolve finds the adapter of a channel and its id there.
func (r *router) resolve(id string) (sender, string, error) {
	if len(r.adapters) == 0 {
		return nil, "", errors.New("no adapter is running")
	}
	if !r.multi() {
		return r.adapters[0], id, nil
	}
	name, rest, ok := strings.Cut(id, ":")
	if ok {
		for _, a := range r.adapters {
			if a.Name() == name && !r.selfQualified[name] {
				return a, rest, nil
			}
		}
		for _, a := range r.adapters {
			if r.selfQualified[a.Name()] {
				return a, id, nil
			}
		}
	}
	return nil, "", fmt.Errorf("channel %q names no running adapter", id)
}

// Send implements actions.Sender.
func (r *router) Send(ctx context.Context, out state.Outgoing) (string, error) {
	a, id, err := r.resolve(out.ChannelID)
	if err != nil {
		return "", err
	}
	out.ChannelID = id
	return a.Send(ctx, out)
}

// Parts implements actions.PartCounter: how many messages the channel's
// adapter would send the message as (one where the adapter does not say).
func (r *router) Parts(out state.Outgoing) int {
	a, id, err := r.resolve(out.ChannelID)
	if err != nil {
		// Send fails the same way and says why.
		return 1
	}
	pc, ok := a.(actions.PartCounter)
	if !ok {
		return 1
	}
	out.ChannelID = id
	return pc.Parts(out)
}

// typing shows a typing indicator where the adapter has one.
func (r *router) typing(log *zap.Logger) func(ctx context.Context, id string) {
	return func(ctx context.Context, id string) {
		a, native, err := r.resolve(id)
		if err != nil {
			return
		}
		if t, ok := a.(typer); ok {
			if err := t.Typing(ctx, native); err != nil && ctx.Err() == nil {
				log.Debug("typing indicator", zap.String("channel", id), zap.Error(err))
			}
		}
	}
}

// inbox is the scheduler seen by one adapter: it qualifies channel ids.
type inbox struct {
	adapter string
	r       *router
	sched   *scheduler.Scheduler
	// cmds answers the admins' "/airi ..." commands; nil without admins.
	cmds *chatCommands
}

// Deliver stores the message and wakes its channel.
func (i *inbox) Deliver(ctx context.Context, ch state.Channel, msg state.Message) error {
	if ch.NativeID == "" {
		ch.NativeID = ch.ID
	}
	ch.ID = i.r.qualify(i.adapter, ch.ID)
	if ch.Platform == "" {
		ch.Platform = i.adapter
	}
	msg.ChannelID = ch.ID
	if i.cmds.handle(ctx, ch, msg) {
		return nil
	}
	return i.sched.Deliver(ctx, ch, msg)
}

// bot is the wired core: store, prompts, planner, actions, scheduler.
type bot struct {
	store   state.Store
	prompts *prompts.Source
	reg     *actions.Registry
	builder *planner.Builder
	sched   *scheduler.Scheduler
	router  *router
	botName string
	// lock is held while the runtime writes a database it opened itself.
	lock *dbLock
	// budget is nil when no token budget is set.
	budget *budget.Tracker
	// cmds answers the admins' chat commands.
	cmds *chatCommands
}

// runtimeOptions are the parts that differ between chat, run, demo and replay.
type runtimeOptions struct {
	Model   planner.Model
	Router  *router
	Now     func() time.Time
	OnTick  func(state.Tick)
	OnFatal func(error)
	// Store, when set, is used instead of opening the configured database;
	// Lock, when set, is the database lock that comes with it, released
	// when the runtime closes.
	Store state.Store
	Lock  *dbLock
	// NoMigrate leaves a PostgreSQL schema as it is (`airi run
	// --no-migrate`, after `airi migrate`); SQLite always migrates.
	NoMigrate bool
	// Leases, when set, limits the scheduler to the channels this replica holds.
	Leases scheduler.Leases
	// ServedOnly limits the bot to channels of the router's adapters:
	// chats of other platforms in the database are left alone.
	ServedOnly bool
	// OnWake and OnSkip, when set, see the reason of every wake and skip.
	OnWake, OnSkip func(channelID, reason string)
}

func openRuntime(ctx context.Context, cfg config, log *zap.Logger, opt runtimeOptions) (_ *bot, err error) {
	// A store handed in is owned from here on: closed (and its lock
	// released) with the runtime, or at once if the runtime fails to open.
	rt := &bot{router: opt.Router, store: opt.Store, lock: opt.Lock}
	defer func() {
		if err != nil {
			rt.close()
		}
	}()
	if opt.Now == nil {
		opt.Now = time.Now
	}
	rt.prompts, err = prompts.Load(cfg.PromptsDir, log)
	if err != nil {
		return nil, fmt.Errorf("load prompts: %w", err)
	}
	rt.botName = cfg.BotName
	if rt.botName == "" {
		rt.botName = rt.prompts.Current().BotName()
	}
	if rt.botName == "" {
		rt.botName = "airi"
	}
	if rt.store == nil {
		rt.store, rt.lock, err = openStore(ctx, cfg, log, !opt.NoMigrate)
		if err != nil {
			return nil, err
		}
	}
	var allowed func(string) bool
	if len(cfg.AllowChannels) > 0 {
		set := map[string]bool{}
		for _, id := range cfg.AllowChannels {
			set[id] = true
		}
		allowed = func(id string) bool { return set[id] }
	}
	if opt.ServedOnly {
		served := newServedChannels(rt.store, opt.Router)
		if listed := allowed; listed != nil {
			allowed = func(id string) bool { return listed(id) && served.allows(id) }
		} else {
			allowed = served.allows
		}
	}
	rt.reg, err = actions.NewBuiltinRegistry(actions.NewHandlers(actions.HandlerDeps{
		Store: rt.store, Sender: opt.Router, BotName: rt.botName, Allowed: allowed,
		SleepMax: cfg.SleepMax, MaxSendChars: cfg.MaxSendChars, MaxSendParts: cfg.MaxSendParts,
		Now: opt.Now, Logger: log.Named("actions"),
		// A read result is shown in the next request, beside new messages
		// that may take another quarter of its budget.
		ReadTokens: cfg.PromptMaxTokens / 4,
	}))
	if err != nil {
		return nil, fmt.Errorf("register actions: %w", err)
	}
	ops, _ := rt.store.(opsStore)
	var controls scheduler.Controls
	if ops != nil {
		controls = ops
	}
	rt.builder = planner.NewBuilder(rt.prompts, rt.reg, planner.BuilderOptions{HistoryLimit: cfg.History, MaxTokens: cfg.PromptMaxTokens, Notes: rt.store})
	policy := attentionPolicy(cfg.Attention, rt.botName)
	var (
		bud   scheduler.Budget
		count func(string) int
	)
	bcfg := budget.Config{Daily: cfg.BudgetDay, ChannelDaily: cfg.ChannelBudgetDay, Channels: cfg.ChannelBudgets, Location: cfg.BudgetTZ}
	if bcfg.Enabled() {
		bs, ok := rt.store.(budget.Store)
		if !ok {
			// Both engines keep token use (see openStore); a store that
			// does not is a wiring error, not a setting to change.
			return nil, fmt.Errorf("token budgets: the %T store does not keep token use", rt.store)
		}
		rt.budget = budget.New(bcfg, bs, log, nil)
		bud = rt.budget
		count = tokens.New().Count
	}
	rt.sched, err = scheduler.New(scheduler.Config{
		Debounce:        cfg.Debounce,
		NoDebounce:      cfg.Debounce == 0,
		TickInterval:    cfg.TickInterval,
		MaxIterations:   cfg.MaxIterations,
		ContinueDelay:   cfg.ContinueDelay,
		NoContinueDelay: cfg.ContinueDelay == 0,
		Concurrency:     cfg.Concurrency,
		Interrupt:       cfg.Interrupt == "cancel",
		BotName:         rt.botName,
		Language:        cfg.Language,
		SendUser:        cfg.SendUser,
		Allowed:         allowed,
		Now:             opt.Now,
		Turn:            cfg.Turn,
		Attention:       policy,
		LogContent:      cfg.LogContent,
	}, scheduler.Deps{
		Store:      rt.store,
		Prompter:   rt.builder,
		Model:      opt.Model,
		Parser:     parse.New(rt.reg),
		Dispatcher: rt.reg,
		Typing:     opt.Router.typing(log),
		OnTick:     opt.OnTick,
		OnFatal:    opt.OnFatal,
		Leases:     opt.Leases,
		Budget:     bud,
		Tokens:     count,
		OnWake:     opt.OnWake,
		OnSkip:     opt.OnSkip,
		Controls:   controls,
		Logger:     log,
	})
	if err != nil {
		return nil, fmt.Errorf("start scheduler: %w", err)
	}
	if ops != nil && len(cfg.Admins) > 0 {
		rt.cmds = &chatCommands{admins: adminSet(cfg.Admins), ctl: &controller{store: ops, sched: rt.sched, now: opt.Now},
			send: opt.Router.Send, log: log.Named("admin")}
	}
	return rt, nil
}

// attentionPolicy is the configured policy with the bot's name, which
// addresses it in every channel.
func attentionPolicy(p attention.Policy, botName string) *attention.Policy {
	names := attention.NormalizeWords([]string{botName})
	out := &attention.Policy{Default: p.Default, Channels: make(map[string]attention.Settings, len(p.Channels))}
	out.Default.Names = names
	for id, s := range p.Channels {
		s.Names = names
		out.Channels[id] = s
	}
	return out
}

// inbox returns the scheduler as the named adapter's inbox.
func (rt *bot) inbox(adapter string) *inbox {
	return &inbox{adapter: adapter, r: rt.router, sched: rt.sched, cmds: rt.cmds}
}

func (rt *bot) close() {
	if rt.store != nil {
		_ = rt.store.Close()
	}
	rt.lock.release()
}
