package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/airi-go/airi/runtime"
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
	n, err := runtime.ExportSessions(ctx, store, cfg.runtime(), filter, a.stdout)
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
