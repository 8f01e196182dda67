package main

import (
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/internal/tokens"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/parse"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state"
)

// bot is the wired core: store, prompts, planner, actions, scheduler.
type bot struct {
	store   state.Store
	prompts *prompts.Source
	reg     *actions.Registry
	builder *planner.Builder
	sched   *scheduler.Scheduler
	router  *router
	botName string
	// budget is nil when no token budget is set.
	budget *budget.Tracker
	// cmds answers the admins' chat commands.
	cmds *chatCommands
}

// runtimeOptions are the parts that differ between chat, run, demo and
// replay. Each is complete when handed in: the store open, the router
// holding every adapter of the process.
type runtimeOptions struct {
	Model planner.Model
	// Store is owned by the runtime from here on: closed when the
	// runtime closes, or at once if the runtime fails to open.
	Store state.Store
	// Persona is the loaded prompts and the bot's name (see loadPersona).
	Persona persona
	Router  *router
	Now     func() time.Time
	OnTick  func(state.Tick)
	OnFatal func(error)
	// Leases, when set, limits the scheduler to the channels this replica holds.
	Leases scheduler.Leases
	// ServedOnly limits the bot to channels of the router's adapters:
	// chats of other platforms in the database are left alone.
	ServedOnly bool
	// OnWake and OnSkip, when set, see the reason of every wake and skip.
	OnWake, OnSkip func(channelID, reason string)
}

// persona is the loaded prompt templates and the name the bot goes by.
type persona struct {
	prompts *prompts.Source
	botName string
}

// loadPersona loads the prompts; the bot's name is AIRI_BOT_NAME, else the
// persona template's, else "airi".
func loadPersona(cfg config, log *zap.Logger) (persona, error) {
	src, err := prompts.Load(cfg.PromptsDir, log)
	if err != nil {
		return persona{}, fmt.Errorf("load prompts: %w", err)
	}
	p := persona{prompts: src, botName: cfg.BotName}
	if p.botName == "" {
		p.botName = src.Current().BotName()
	}
	if p.botName == "" {
		p.botName = "airi"
	}
	return p, nil
}

func openRuntime(cfg config, log *zap.Logger, opt runtimeOptions) (_ *bot, err error) {
	rt := &bot{router: opt.Router, store: opt.Store, prompts: opt.Persona.prompts, botName: opt.Persona.botName}
	defer func() {
		if err != nil {
			rt.close()
		}
	}()
	switch {
	case rt.store == nil:
		return nil, errors.New("open runtime: no store")
	case rt.router == nil:
		return nil, errors.New("open runtime: no router")
	case rt.prompts == nil:
		return nil, errors.New("open runtime: no prompts")
	}
	if opt.Now == nil {
		opt.Now = time.Now
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
	// The history window is the builder's; the scheduler asks it.
	rt.builder = planner.NewBuilder(rt.prompts, rt.reg, planner.BuilderOptions{HistoryLimit: cfg.History, MaxTokens: cfg.PromptMaxTokens,
		CachedChannels: cfg.PromptCacheChannels, Notes: rt.store})
	policy := attentionPolicy(cfg.Attention, rt.botName)
	var (
		bud   scheduler.Budget
		count func(string) int
	)
	bcfg := budget.Config{Daily: cfg.BudgetDay, ChannelDaily: cfg.ChannelBudgetDay, Channels: cfg.ChannelBudgets, Location: cfg.BudgetTZ}
	if bcfg.Enabled() {
		rt.budget = budget.New(bcfg, rt.store, log, nil)
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
		Wakes:           cfg.Wakes,
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
		Controls:   rt.store,
		Logger:     log,
	})
	if err != nil {
		return nil, fmt.Errorf("start scheduler: %w", err)
	}
	if len(cfg.Admins) > 0 {
		rt.cmds = &chatCommands{admins: adminSet(cfg.Admins), ctl: &controller{store: rt.store, sched: rt.sched, now: opt.Now},
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
}
