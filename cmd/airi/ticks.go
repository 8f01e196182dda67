package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/scheduler/attention"
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

// sessionConfig is cfg set up to run a recorded session as it ran: what
// the session's header names replaces what is configured, and the loop's
// delays are off (replay drives the wakes itself, eval lets the delays
// pass on its own clock). Replay and eval both use it.
//
// The header is the record of the settings the session ran under, so it
// wins over the configuration wherever it speaks, also when it says
// "unset": an empty bot name is the persona's name, no language is the
// users' language, no allowed channels is all of them. A zero that the
// format omits means the runtime's default, as the format documents, not
// the operator's setting; interrupt, always written, is taken as written. A session that names no group mode predates
// them and woke on every message (all); one that names no turn semantics
// ran under the earlier ones. Budgets are not replayed: they would only
// cut a run short.
func sessionConfig(cfg config, h *replay.Header) config {
	st, def := h.Settings, defaultConfig()
	cfg.BotName = st.BotName
	cfg.Language = st.Language
	cfg.History = cmp.Or(st.History, def.History)
	cfg.MaxIterations = cmp.Or(st.MaxIterations, def.MaxIterations)
	cfg.Interrupt = "finish"
	if st.Interrupt {
		cfg.Interrupt = "cancel"
	}
	cfg.SleepMax = def.SleepMax
	if st.SleepMaxMS > 0 {
		cfg.SleepMax = time.Duration(st.SleepMaxMS) * time.Millisecond
	}
	// The format omits sendUser when false, so its absence cannot tell
	// "off" from "not recorded": it means the default, like every zero.
	// It only decides the request's user field, which replay does not
	// compare.
	cfg.SendUser = st.SendUser || def.SendUser
	cfg.AllowChannels = st.AllowChannels
	cfg.Turn = h.TurnSemantics()
	cfg.ContinueDelay = 0
	// The header names the group mode alone; the rest of the policy is
	// the defaults it ran with, the same for every channel.
	cfg.Attention = attention.Policy{Default: attention.Defaults()}
	cfg.Attention.Default.Mode = attention.Mode(h.AttentionMode())
	cfg.BudgetDay, cfg.ChannelBudgetDay, cfg.ChannelBudgets = 0, 0, nil
	return cfg
}
