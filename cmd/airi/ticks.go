package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/state"
)

// cmdTicksExport writes the ticks and events recorded in the store at
// DB_PATH as sessions (scheduler/replay's format) to stdout: one session
// per channel that has ticks, in channel id order, one after another in
// the same stream, unless --channel picks one.
func (a *app) cmdTicksExport(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("ticks export", flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	var cf commonFlags
	cf.register(fs)
	channel := fs.String("channel", "", "export only this channel (the id the model sees)")
	since := fs.String("since", "", "export only ticks and messages at or after this RFC 3339 time")
	if code, ok := a.parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(a.stderr, "airi ticks export: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	var filter state.TickFilter
	filter.ChannelID = *channel
	if *since != "" {
		t, err := time.Parse(time.RFC3339Nano, *since)
		if err != nil {
			fmt.Fprintf(a.stderr, "airi ticks export: --since %q: want an RFC 3339 time such as 2026-01-02T15:04:05Z\n", *since)
			return exitUsage
		}
		filter.Since = t
	}
	cfg, log, code := a.setup("ticks export", cf)
	if code != exitOK {
		return code
	}
	defer func() { _ = log.Sync() }()
	if err := storeExists(cfg); err != nil {
		fmt.Fprintln(a.stderr, "airi ticks export:", err)
		return exitFailure
	}
	// Read only and without the lock: an export works beside a running bot.
	store, err := openStoreReadOnly(ctx, cfg, log)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi ticks export:", err)
		return exitFailure
	}
	defer store.Close()
	n, err := exportSessions(ctx, store, cfg, filter, a.stdout)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi ticks export:", err)
		return exitFailure
	}
	if n == 0 {
		fmt.Fprintln(a.stderr, "airi ticks export: no ticks recorded for that selection")
		if *channel != "" {
			return exitFailure
		}
	}
	return exitOK
}

// exportSessions writes the store's recorded sessions to w and returns how
// many it wrote. The headers carry the settings of cfg, the configuration
// the bot ran with.
func exportSessions(ctx context.Context, store state.Store, cfg config, filter state.TickFilter, w io.Writer) (int, error) {
	bot := cfg.BotName
	if bot == "" {
		src, err := prompts.Load(cfg.PromptsDir, nil)
		if err != nil {
			return 0, fmt.Errorf("load prompts for the bot's name: %w", err)
		}
		bot = src.Current().BotName()
	}
	sessions, err := replay.Export(ctx, store, replay.ExportOptions{Filter: filter, Bot: bot, Settings: sessionSettings(cfg), Turn: cfg.Turn,
		Attention: func(id string) string { return string(cfg.Attention.For(id).Mode) }})
	if errors.Is(err, state.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	for _, s := range sessions {
		if err := replay.Write(w, s); err != nil {
			return 0, err
		}
	}
	return len(sessions), nil
}

// sessionSettings are the settings of cfg a replay needs.
func sessionSettings(cfg config) replay.Settings {
	return replay.Settings{
		BotName: cfg.BotName, Language: cfg.Language, History: cfg.History, MaxIterations: cfg.MaxIterations,
		Interrupt: cfg.Interrupt == "cancel", SleepMaxMS: cfg.SleepMax.Milliseconds(), SendUser: cfg.SendUser,
		AllowChannels: cfg.AllowChannels,
	}
}
