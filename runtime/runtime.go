// Package runtime is the wired bot: the store, the prompts, the planner,
// the actions and the scheduler, put together in order and run as one
// value, as tsnet.Server is a whole node.
//
// A Bot owns the router that sends each outgoing message through the
// adapter of its channel, the filter that keeps it to the channels of the
// adapters it runs, the operator controller and the admins' chat
// commands, retention, and on PostgreSQL its share of the replicas (the
// channel leases and the adapters' intake roles). Start runs its
// goroutines (the scheduler, the prompt watcher, the retention sweep, each
// adapter's intake and any added with Go) under one owner; Close cancels
// them, waits and closes the store within the caller's deadline.
//
// The binary, replay, eval and bench build the bot the same way, with New.
package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sync/errgroup"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/internal/tokens"
	"github.com/airi-go/airi/media"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/parse"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/schedule"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/postgres"
	"github.com/airi-go/airi/tools"
)

// Config is how the bot behaves: plain values, every one with the meaning
// of the setting of the same name in the README's configuration table.
type Config struct {
	// BotName is the name the bot goes by; empty takes the persona
	// template's, else "airi".
	BotName string
	// PromptsDir overrides the embedded templates; empty uses them. It is
	// read only when Deps.Prompts is nil.
	PromptsDir string
	Language   string
	SendUser   bool

	History int
	// Debounce and ContinueDelay are off when zero.
	Debounce      time.Duration
	TickInterval  time.Duration
	MaxIterations int
	ContinueDelay time.Duration
	SleepMax      time.Duration
	Concurrency   int
	// Wakes bounds the wakes running at once; zero leaves the scheduler's
	// default.
	Wakes int
	// Interrupt cancels a model call in flight when a new message comes.
	Interrupt bool
	// PromptMaxTokens bounds one model request (o200k estimate).
	PromptMaxTokens     int
	PromptCacheChannels int
	MaxSendChars        int
	MaxSendParts        int
	// AllowChannels, when set, are the only channels the bot acts in.
	AllowChannels []string
	// ServedOnly keeps the bot to the channels of its adapters: chats of
	// other platforms in the database are left alone.
	ServedOnly bool

	// Attention is the policy of group channels.
	Attention attention.Policy
	// Budget holds the daily token budgets; a zero one sets none.
	Budget budget.Config
	// AnswerTokens is the most tokens a model answer may take
	// (LLM_MAX_TOKENS); each call reserves it against the budgets, with
	// the request's tokens, before it starts. Zero is the scheduler's
	// default.
	AnswerTokens int

	LogContent bool
	// Admins are the platform-qualified user ids ("telegram:123") whose
	// "/airi ..." commands the bot answers itself.
	Admins []string
	// TickRetention and MessageRetention are how long tick records and
	// messages are kept; zero keeps them forever.
	TickRetention, MessageRetention time.Duration

	// Replica makes the process one replica of several when the store is
	// PostgreSQL: it serves the channels it leases, and runs an adapter's
	// intake only while it holds its role. On SQLite it does nothing.
	Replica  bool
	LeaseTTL time.Duration

	// Turn is the turn semantics; empty is the scheduler's.
	Turn scheduler.Turn

	// TZ is the time zone reminders are read in (nil is UTC), ChannelTZ
	// a channel's own.
	TZ        *time.Location
	ChannelTZ map[string]*time.Location
	// ScheduleMax and ScheduleMaxPerUser cap pending reminders per chat
	// and per person; zero takes the defaults of package schedule.
	ScheduleMax, ScheduleMaxPerUser int
	// ScheduleInterval is how often the due loop looks (zero is the
	// default, negative only when woken); ScheduleGrace how late a missed
	// reminder is still delivered.
	ScheduleInterval, ScheduleGrace time.Duration
	// Tools are the MCP servers and who may use their tools; a zero one
	// runs none and leaves the prompt as without tools.
	Tools tools.Config
	// Media is what the model is shown of attachments; an empty Mode is
	// describe with a vision model (Deps.Vision), else off.
	Media media.Config
}

// Deps are the parts the bot is built from, each complete when handed in.
type Deps struct {
	// Store is the bot's from New on: Close closes it, and so does a New
	// that fails.
	Store state.Store
	Model planner.Model
	// Adapters are every adapter of the process.
	Adapters []Adapter
	// Prompts, when nil, are loaded from Config.PromptsDir.
	Prompts *prompts.Source
	// Now is the clock; nil is time.Now.
	Now    func() time.Time
	Logger *zap.Logger

	// OnTick sees every recorded tick; OnFatal a model failure the bot
	// cannot go on from; OnWake and OnSkip the reason of every wake and
	// skip. Each may be nil.
	OnTick         func(state.Tick)
	OnFatal        func(error)
	OnWake, OnSkip func(channelID, reason string)
	// OnReaction, when set, counts every reaction an adapter delivers, by
	// outcome (ReactionReceived, ReactionIgnored).
	OnReaction func(channelID, outcome string)
	// OnToolCall sees every MCP tool call: the tool, its outcome (ok,
	// error, timeout, refused, unavailable) and how long it took; nil
	// for none.
	OnToolCall func(tool, outcome string, took time.Duration)
	// Tools, when set, is where tool calls go instead of the servers of
	// Config.Tools, which then starts none; its rules still decide who
	// may use each tool. A replay answers from the recording this way.
	Tools ToolBox
	// Leases, when set, limits the scheduler to the channels held; a
	// replica (Config.Replica) sets its own.
	Leases scheduler.Leases
	// Vision is the model that describes images, Speech the one that
	// transcribes voice notes; nil for none. OnMedia, when set, sees
	// every attachment looked at (kind, outcome, bytes fetched).
	Vision  planner.Model
	Speech  media.Transcriber
	OnMedia func(kind, outcome string, bytes int64)
}

// ConfigError is a Config the bot cannot be built with (a lease TTL the
// replicas refuse); its text is the reason.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// Bot is the running bot. Make it with New.
type Bot struct {
	cfg     Config
	log     *zap.Logger
	now     func() time.Time
	store   state.Store
	prompts *prompts.Source
	reg     *actions.Registry
	builder *planner.Builder
	sched   *scheduler.Scheduler
	router  *router
	name    string
	// budget is nil when no token budget is set.
	budget *budget.Tracker
	// cmds answers the admins' chat commands; nil without admins.
	cmds *chatCommands
	// replica is this process's share of the bot on PostgreSQL; nil otherwise.
	replica *postgres.Replica
	// leases are the channels this process serves, when limited.
	leases scheduler.Leases
	extra  []func(ctx context.Context) error
	// due delivers the reminders; remCounts counts them.
	due       *schedule.Due
	remCounts *schedule.Counts
	// onReaction is Deps.OnReaction.
	onReaction func(channelID, outcome string)
	// tools runs the MCP servers; nil without any.
	tools *tools.Manager

	// cancel ends the context of everything Start started; group owns
	// the goroutines.
	cancel    context.CancelFunc
	group     *errgroup.Group
	closeOnce sync.Once
	closeErr  error
}

// New wires the bot: prompts, actions, planner, scheduler, the chat
// commands, the replica. Nothing runs until Start. When New fails it has
// closed the store.
func New(cfg Config, deps Deps) (_ *Bot, err error) {
	b := &Bot{cfg: cfg, log: deps.Logger, now: deps.Now, store: deps.Store, prompts: deps.Prompts,
		router: newRouter(deps.Adapters...), onReaction: deps.OnReaction}
	defer func() {
		if err != nil && b.store != nil {
			_ = b.store.Close()
		}
	}()
	if b.log == nil {
		b.log = zap.NewNop()
	}
	if b.now == nil {
		b.now = time.Now
	}
	if b.store == nil {
		return nil, errors.New("open runtime: no store")
	}
	if b.prompts == nil {
		b.prompts, err = prompts.Load(cfg.PromptsDir, b.log)
		if err != nil {
			return nil, fmt.Errorf("load prompts: %w", err)
		}
	}
	b.name = BotName(cfg.BotName, b.prompts)
	allowed := b.allowed()
	handlers := actions.NewHandlers(actions.HandlerDeps{
		Store: b.store, Sender: b.router, Reactor: b.router, BotName: b.name, Name: b.Name, Allowed: allowed,
		SleepMax: cfg.SleepMax, MaxSendChars: cfg.MaxSendChars, MaxSendParts: cfg.MaxSendParts,
		Now: b.now, Logger: b.log.Named("actions"),
		// A read result is shown in the next request, beside new messages
		// that may take another quarter of its budget.
		ReadTokens: cfg.PromptMaxTokens / 4,
	})
	b.bindReminders(&handlers, allowed)
	b.reg, err = actions.NewBuiltinRegistry(handlers)
	if err != nil {
		return nil, fmt.Errorf("register actions: %w", err)
	}
	// The history window is the builder's; the scheduler asks it.
	b.builder = planner.NewBuilder(b.prompts, b.reg, planner.BuilderOptions{HistoryLimit: cfg.History, MaxTokens: cfg.PromptMaxTokens,
		CachedChannels: cfg.PromptCacheChannels, Notes: b.store})
	var (
		bud   scheduler.Budget
		count func(string) int
	)
	if cfg.Budget.Enabled() {
		b.budget = budget.New(cfg.Budget, b.store, b.log, nil)
		bud = b.budget
		count = tokens.New().Count
	}
	var (
		prompter scheduler.Prompter   = b.builder
		parser   scheduler.Parser     = parse.New(b.reg)
		disp     scheduler.Dispatcher = b.reg
	)
	if box := deps.Tools; box != nil || cfg.Tools.Enabled() {
		if err := cfg.Tools.Validate(); err != nil {
			return nil, &ConfigError{Err: err}
		}
		if box == nil {
			b.tools = tools.New(cfg.Tools, b.log)
			box = b.tools
		}
		room := newToolRoom(box, cfg.Tools.Policy, b.log, prompter, parser, disp)
		room.onCall = deps.OnToolCall
		room.keep = func(ctx context.Context, catalog []byte) error {
			return b.store.SetCursor(ctx, CatalogKey, string(catalog))
		}
		prompter, parser, disp = room, room, room
	}
	var (
		mediaRoom   scheduler.Media
		mediaBudget media.Budget
	)
	if b.budget != nil {
		mediaBudget = b.budget
	}
	if room, err := b.newMediaRoom(cfg.Media, deps, mediaBudget); err != nil {
		return nil, err
	} else if room != nil {
		mediaRoom = room
	}
	leases := deps.Leases
	if cfg.Replica {
		if b.replica, err = newReplica(cfg, b.store, b.log); err != nil {
			return nil, &ConfigError{Err: err}
		}
		if b.replica != nil {
			leases = b.replica
		}
	}
	b.leases = leases
	b.sched, err = scheduler.New(scheduler.Config{
		Debounce:        cfg.Debounce,
		NoDebounce:      cfg.Debounce == 0,
		TickInterval:    cfg.TickInterval,
		MaxIterations:   cfg.MaxIterations,
		ContinueDelay:   cfg.ContinueDelay,
		NoContinueDelay: cfg.ContinueDelay == 0,
		AnswerTokens:    cfg.AnswerTokens,
		Concurrency:     cfg.Concurrency,
		Wakes:           cfg.Wakes,
		Interrupt:       cfg.Interrupt,
		BotName:         b.name,
		Name:            b.Name,
		Language:        cfg.Language,
		SendUser:        cfg.SendUser,
		Allowed:         allowed,
		Now:             b.now,
		Turn:            cfg.Turn,
		Attention:       attentionPolicy(cfg.Attention, b.name),
		LogContent:      cfg.LogContent,
	}, scheduler.Deps{
		Store:      b.store,
		Prompter:   prompter,
		Model:      deps.Model,
		Parser:     parser,
		Dispatcher: disp,
		Typing:     b.router.typing(b.log),
		OnTick:     deps.OnTick,
		OnFatal:    deps.OnFatal,
		Leases:     leases,
		Budget:     bud,
		Tokens:     count,
		OnWake:     deps.OnWake,
		OnSkip:     deps.OnSkip,
		Controls:   b.store,
		Storage:    storageOf(b.store),
		Media:      mediaRoom,
		Logger:     b.log,
	})
	if err != nil {
		return nil, fmt.Errorf("start scheduler: %w", err)
	}
	if len(cfg.Admins) > 0 {
		b.cmds = &chatCommands{admins: adminSet(cfg.Admins), ctl: &Controller{Store: b.store, Scheduler: b.sched, Now: b.now},
			send: b.router.Send, log: b.log.Named("admin")}
	}
	return b, nil
}

// BotName is the name a bot goes by: the configured one, else the persona
// template's, else "airi".
func BotName(configured string, src *prompts.Source) string {
	if configured != "" {
		return configured
	}
	if src != nil {
		if n := src.Current().BotName(); n != "" {
			return n
		}
	}
	return "airi"
}

// allowed is the filter of the channels the bot acts in: the allow list,
// and with ServedOnly the channels of its adapters; nil allows every one.
func (b *Bot) allowed() func(string) bool {
	var allowed func(string) bool
	if len(b.cfg.AllowChannels) > 0 {
		set := map[string]bool{}
		for _, id := range b.cfg.AllowChannels {
			set[id] = true
		}
		allowed = func(id string) bool { return set[id] }
	}
	if b.cfg.ServedOnly {
		served := newServedChannels(b.store, b.router)
		if listed := allowed; listed != nil {
			allowed = func(id string) bool { return listed(id) && served.allows(id) }
		} else {
			allowed = served.allows
		}
	}
	return allowed
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

// Name is the name the bot goes by now: AIRI_BOT_NAME when set, else the
// persona's name as the prompts hold it now, so that renaming the persona
// while the bot runs applies from the next request.
func (b *Bot) Name() string {
	if b.cfg.BotName != "" || b.prompts == nil {
		return b.name
	}
	return BotName("", b.prompts)
}

// Store is the bot's store.
func (b *Bot) Store() state.Store { return b.store }

// Scheduler is the bot's scheduler, for callers that step it themselves
// (replay, eval) or wait for it to go idle.
func (b *Bot) Scheduler() *scheduler.Scheduler { return b.sched }

// Budget is the token budgets' tracker; nil when no budget is set.
func (b *Bot) Budget() *budget.Tracker { return b.budget }

// Inbox is the bot as the named adapter delivers to it: channel ids are
// qualified, admins' commands answered.
func (b *Bot) Inbox(adapter string) adapters.Inbox {
	return &inbox{adapter: adapter, r: b.router, sched: b.sched, cmds: b.cmds,
		store: b.store, onReaction: b.onReaction, log: b.log.Named(adapter)}
}

// Go adds a goroutine the bot runs from Start until it stops, such as an
// admin server reading its store: it is cancelled with the others and
// waited for before the store closes. Its error once the bot is stopping
// is not a failure. Call it before Start.
func (b *Bot) Go(f func(ctx context.Context) error) { b.extra = append(b.extra, f) }

// Start starts the replica (on PostgreSQL), the scheduler, and the
// goroutines of the prompt watcher, the retention sweep, each adapter's
// intake and those added with Go; they run until ctx ends, one of them
// fails, or Close.
func (b *Bot) Start(ctx context.Context) error {
	runCtx, cancel := context.WithCancel(ctx)
	b.cancel = cancel
	if b.replica != nil {
		if err := b.replica.Start(runCtx, b.sched); err != nil {
			return err
		}
	}
	if err := b.sched.Start(runCtx); err != nil {
		return err
	}
	if b.tools != nil {
		b.tools.Start(runCtx)
	}
	g, gctx := errgroup.WithContext(runCtx)
	b.group = g
	// An error once the context ended is the goroutine stopping, not a failure.
	spawn := func(f func(ctx context.Context) error) {
		g.Go(func() error {
			if err := f(gctx); err != nil && gctx.Err() == nil {
				return err
			}
			return nil
		})
	}
	for _, f := range b.extra {
		spawn(f)
	}
	spawn(b.prompts.Watch)
	spawn(b.due.Run)
	spawn(func(ctx context.Context) error {
		return retain(ctx, b.store, b.cfg.TickRetention, b.cfg.MessageRetention, b.log.Named("retention"))
	})
	for _, a := range b.router.adapters {
		if a.Run == nil {
			continue
		}
		spawn(func(ctx context.Context) error {
			if err := b.intake(ctx, a); err != nil {
				return fmt.Errorf("%s adapter: %w", a.Name(), err)
			}
			return nil
		})
	}
	return nil
}

// intake runs an adapter's intake; on PostgreSQL one replica at a time
// takes the platform's updates, unless every replica takes them (a webhook).
func (b *Bot) intake(ctx context.Context, a Adapter) error {
	run := func(ctx context.Context) error { return a.Run(ctx, b.Inbox(a.Name())) }
	if b.replica == nil || a.EveryReplica {
		return run(ctx)
	}
	return b.replica.RunRole(ctx, roleName(a.Name()), run)
}

// Wait blocks until the context given to Start ends or one of the bot's
// goroutines fails, and returns that failure (nil when the context
// ended). The other goroutines have stopped when it returns.
func (b *Bot) Wait() error {
	if b.group == nil {
		return nil
	}
	return b.group.Wait()
}

// Close stops the bot within ctx's deadline: it cancels what Start
// started, stops the scheduler (in-flight ticks end), waits for the
// goroutines, gives up the replica's leases and roles, then closes the
// store. It reports what did not stop in time. Calls after the first
// return the first one's result.
func (b *Bot) Close(ctx context.Context) error {
	b.closeOnce.Do(func() {
		if b.cancel != nil {
			b.cancel()
		}
		var errs []error
		if err := b.sched.Close(ctx); err != nil {
			errs = append(errs, err)
		}
		if b.tools != nil {
			if err := b.tools.Close(ctx); err != nil {
				errs = append(errs, err)
			}
		}
		if b.group != nil {
			stopped := make(chan struct{})
			go func() {
				_ = b.group.Wait()
				close(stopped)
			}()
			select {
			case <-stopped:
			case <-ctx.Done():
				errs = append(errs, fmt.Errorf("stop the adapters and the admin server: %w", ctx.Err()))
			}
		}
		if b.replica != nil {
			if err := b.replica.Close(ctx); err != nil {
				errs = append(errs, err)
			}
		}
		if err := b.store.Close(); err != nil {
			errs = append(errs, err)
		}
		b.closeErr = errors.Join(errs...)
	})
	return b.closeErr
}

// storageOf is the store's report of whether it takes writes, where the
// engine keeps one (SQLite, whose disk can fill); PostgreSQL's writes
// fail on the server, and a wake's first write says so.
func storageOf(st state.Store) scheduler.Storage {
	if s, ok := st.(scheduler.Storage); ok {
		return s
	}
	return nil
}
