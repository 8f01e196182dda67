package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/adapters/console"
	"github.com/airi-go/airi/planner/openai"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/state"
)

// shutdownGrace bounds how long in-flight ticks may take to stop.
const shutdownGrace = 10 * time.Second

// commonFlags are the flags every long-running command takes.
type commonFlags struct {
	configFile string
}

func (f *commonFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.configFile, "config", "", "YAML file of settings (keys are the variable names in lower case)")
}

// setup loads the configuration and the logger, printing every problem.
func (a *app) setup(cmd string, f commonFlags) (config, *zap.Logger, int) {
	cfg, err := loadConfig(f.configFile, a.getenv)
	if err != nil {
		fmt.Fprintf(a.stderr, "airi %s: invalid configuration:\n%v\n", cmd, err)
		return cfg, nil, exitUsage
	}
	log, err := newLogger(a.stderr, cfg.LogLevel, cfg.LogFormat)
	if err != nil {
		fmt.Fprintf(a.stderr, "airi %s: %v\n", cmd, err)
		return cfg, nil, exitUsage
	}
	return cfg, log, exitOK
}

// newModel builds the model client from the configuration.
// Options adjust the client's configuration (`airi config check` makes
// one attempt only).
func newModel(cfg config, log *zap.Logger, options ...func(*openai.Config)) (*openai.Client, error) {
	mc := openai.Config{
		BaseURL: cfg.LLMBaseURL, APIKey: cfg.LLMKey, Model: cfg.LLMModel, Timeout: cfg.LLMTimeout,
		Temperature: cfg.LLMTemperature, MaxTokens: cfg.LLMMaxTokens, JSONMode: cfg.LLMJSONMode,
		ExtraBody: cfg.LLMExtraBody,
	}
	if cfg.LLMJSONMode == openai.JSONModeSchema {
		reg, err := actions.NewBuiltinRegistry(actions.Handlers{})
		if err != nil {
			return nil, fmt.Errorf("describe actions: %w", err)
		}
		mc.Schema = reg.AnswerSchema()
	}
	for _, o := range options {
		o(&mc)
	}
	return openai.New(mc, log)
}

func (a *app) cmdChat(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	var cf commonFlags
	cf.register(fs)
	channel := fs.String("channel", "console", "channel id of the conversation")
	user := fs.String("user", "you", "your name in the conversation")
	logFile := fs.String("log", "", "on a terminal, write the logs to this file (otherwise only warnings and errors are shown)")
	if code, ok := a.parseFlags(fs, args); !ok {
		return code
	}
	cfg, log, code := a.setup("chat", cf)
	if code != exitOK {
		return code
	}
	// On a terminal the conversation has the screen: a prompt, the
	// thinking line, and only the logs that need a person.
	var screen *console.Screen
	var logsLine string
	if console.IsTerminal(a.stdin) && console.IsTerminal(a.stderr) {
		screen = console.NewScreen(a.stderr, *user, func() string { return cfg.BotName })
		var closeLog func()
		var err error
		if log, closeLog, logsLine, err = chatLogger(cfg, *logFile, screen); err != nil {
			fmt.Fprintln(a.stderr, "airi chat:", err)
			return exitUsage
		}
		defer closeLog()
	}
	defer func() { _ = log.Sync() }()
	if err := cfg.requireModel(); err != nil {
		fmt.Fprintf(a.stderr, "airi chat needs a model:\n%v\n", err)
		return exitUsage
	}

	model, err := newModel(cfg, log)
	if err != nil {
		fmt.Fprintf(a.stderr, "airi chat: invalid model settings:\n%v\n", err)
		return exitUsage
	}
	if cfg.DatabaseURL != "" {
		// Replicas may serve other channels of the same database: the
		// terminal drives its own channel only.
		cfg.AllowChannels = []string{*channel}
	}
	store, err := openStore(ctx, cfg, log, true)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi chat:", err)
		return openFailureCode(err)
	}
	src, err := prompts.Load(cfg.PromptsDir, log)
	if err != nil {
		_ = store.Close()
		fmt.Fprintln(a.stderr, "airi chat: load prompts:", err)
		return exitFailure
	}
	botName := runtime.BotName(cfg.BotName, src)
	in := a.stdin
	if screen != nil {
		in = screen.Reader(a.stdin)
	}
	con := console.New(console.Config{ChannelID: *channel, User: *user, BotName: botName}, in, a.stdout, log)
	var out runtime.Sender = con
	var onTick func(state.Tick)
	interactive := console.IsTerminal(a.stdin)
	if screen != nil {
		out = screen.OnScreen(con)
		onTick = screen.Tick
		screen.SetBot(func() string { return botName })
	}
	fatal := make(chan error, 1)
	rc := cfg.runtime()
	rc.ServedOnly = true
	// The terminal's bot keeps every record: retention is the running bot's.
	rc.TickRetention, rc.MessageRetention = 0, 0
	rt, err := runtime.New(rc, runtime.Deps{
		Model: model, Store: store, Prompts: src, Logger: log, OnTick: onTick,
		// The console is read below, by chatUntilIdle.
		Adapters: []runtime.Adapter{{Sender: out}},
		OnFatal: func(err error) {
			select {
			case fatal <- err:
			default:
			}
		},
	})
	if err != nil {
		fmt.Fprintln(a.stderr, "airi chat:", err)
		return openFailureCode(err)
	}
	if screen != nil {
		screen.SetBot(rt.Name)
		fmt.Fprintln(a.stderr, chatBanner(cfg, rt.Name()))
		fmt.Fprintln(a.stderr, logsLine)
		screen.ShowPrompt()
		defer screen.Close()
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := rt.Start(runCtx); err != nil {
		_ = rt.Close(context.WithoutCancel(ctx))
		fmt.Fprintln(a.stderr, "airi chat:", err)
		return exitFailure
	}
	giveUp := cfg.GiveUp
	if interactive {
		// A person at the terminal decides when to stop.
		giveUp = 0
	}
	// The lines chatUntilIdle ends with go on a clean line of the screen.
	var errw io.Writer = a.stderr
	if screen != nil {
		errw = screen
	}
	code = a.chatUntilIdle(ctx, runCtx, rt, con, fatal, giveUp, errw)
	closeCtx, done := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer done()
	cancel()
	if err := rt.Close(closeCtx); err != nil {
		log.Warn("shutdown", zap.Error(err))
	}
	if err := rt.Wait(); err != nil {
		log.Warn("prompt hot reload stopped", zap.Error(err))
	}
	return code
}

// chatUntilIdle feeds the console's input to the loop; when the input ends
// it waits until the loop is idle. With giveUp set, it stops once every
// model call has failed for that long. The input reader is not waited
// for: a terminal read cannot be interrupted, and the process ends after
// this.
func (a *app) chatUntilIdle(ctx, runCtx context.Context, rt *runtime.Bot, con *console.Adapter, fatal <-chan error, giveUp time.Duration, errw io.Writer) int {
	inputDone := make(chan error, 1)
	go func() { inputDone <- con.Run(runCtx, rt.Inbox(console.Name)) }()
	idle := make(chan error, 1)
	var check <-chan time.Time
	if giveUp > 0 {
		t := time.NewTicker(min(giveUp/5, time.Second))
		defer t.Stop()
		check = t.C
	}
	channel := con.Channel().ID
	for {
		select {
		case err := <-inputDone:
			if err != nil {
				fmt.Fprintln(errw, "airi chat:", err)
				return exitFailure
			}
			go func() { idle <- rt.Scheduler().WaitIdle(runCtx) }()
		case err := <-idle:
			if err != nil && ctx.Err() == nil {
				fmt.Fprintln(errw, "airi chat:", err)
				return exitFailure
			}
			return exitOK
		case err := <-fatal:
			fmt.Fprintf(errw, "airi chat: the model failed: %v%s\n", err, unreadReport(context.WithoutCancel(ctx), rt, channel))
			return exitFailure
		case now := <-check:
			if line, ok := gaveUp(rt, giveUp, now); ok {
				fmt.Fprintf(errw, "airi chat: %s%s\n", line, unreadReport(context.WithoutCancel(ctx), rt, channel))
				return exitFailure
			}
		case <-ctx.Done():
			return exitOK
		}
	}
}
