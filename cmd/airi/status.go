package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/internal/term"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/state"
)

// opsFlags are the flags of the commands that read or change the
// database of a bot that may be running.
type opsFlags struct {
	commonFlags
	json bool
}

// opsSetup parses the flags of an operator command and loads the
// configuration. When the last result is false the command returns the
// code at once: after --help (exit 0, nothing opened) or a problem
// already printed.
func (a *app) opsSetup(name string, args []string, withJSON bool, extra func(fs *flag.FlagSet)) (opsFlags, config, *zap.Logger, []string, int, bool) {
	fs := a.flags(name)
	var of opsFlags
	of.register(fs)
	if withJSON {
		fs.BoolVar(&of.json, "json", false, "print JSON")
	}
	if extra != nil {
		extra(fs)
	}
	// Flags may follow the arguments ("airi channel pause ID --for 1h").
	var positional []string
	for {
		if code, ok := a.parseFlags(fs, args); !ok {
			return of, config{}, nil, nil, code, false
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	cfg, log, code := a.setup(name, of.commonFlags)
	if code != exitOK {
		return of, cfg, nil, nil, code, false
	}
	return of, cfg, log, positional, exitOK, true
}

func (a *app) cmdStatus(ctx context.Context, args []string) int {
	of, cfg, log, rest, code, ok := a.opsSetup("status", args, true, nil)
	if !ok {
		return code
	}
	defer func() { _ = log.Sync() }()
	if len(rest) > 0 {
		fmt.Fprintln(a.stderr, "airi status: takes no arguments")
		return exitUsage
	}
	st, err := openOps(ctx, cfg, log, false)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi status:", err)
		return exitFailure
	}
	defer st.Close()
	now := time.Now()
	list, err := runtime.Statuses(ctx, st, now)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi status:", err)
		return exitFailure
	}
	if of.json {
		_ = json.NewEncoder(a.stdout).Encode(struct {
			Channels []runtime.ChannelStatus `json:"channels"`
		}{list})
		return exitOK
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CHANNEL\tPLATFORM\tTITLE\tUNREAD\tLAST TICK\tOUTCOME\tTOKENS TODAY\tPAUSED\tLAST ERROR")
	for _, c := range list {
		last, outcome := "-", "-"
		if c.LastTick != nil {
			last = now.Sub(c.LastTick.Now).Round(time.Second).String() + " ago"
			outcome = c.LastTick.Outcome
		}
		paused := "no"
		if c.Paused {
			paused = "yes"
			if !c.PausedUntil.IsZero() {
				paused = "until " + c.PausedUntil.Local().Format("15:04")
			}
		}
		errText := c.LastError
		if len(errText) > 60 {
			errText = errText[:60] + "…"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%d\t%s\t%s\n", cell(c.ID), c.Platform, cell(c.Title), c.Unread, last, outcome, c.TokensToday, paused, cell(errText))
	}
	_ = tw.Flush()
	return exitOK
}

func (a *app) cmdChannels(ctx context.Context, args []string) int {
	of, cfg, log, _, code, ok := a.opsSetup("channels", args, true, nil)
	if !ok {
		return code
	}
	defer func() { _ = log.Sync() }()
	st, err := openOps(ctx, cfg, log, false)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi channels:", err)
		return exitFailure
	}
	defer st.Close()
	chans, err := st.Channels(ctx)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi channels:", err)
		return exitFailure
	}
	if of.json {
		if chans == nil {
			chans = []state.Channel{}
		}
		_ = json.NewEncoder(a.stdout).Encode(chans)
		return exitOK
	}
	for _, ch := range chans {
		kind := "direct"
		if ch.Group {
			kind = "group"
		}
		fmt.Fprintf(a.stdout, "%s\t%s\t%s\t%s\n", cell(ch.ID), ch.Platform, kind, cell(ch.Title))
	}
	return exitOK
}

// channelCommand runs a command on one existing channel.
func (a *app) channelCommand(ctx context.Context, name string, args []string, extra func(fs *flag.FlagSet), run func(ctx context.Context, c *runtime.Controller, id string) (string, error)) int {
	_, cfg, log, rest, code, ok := a.opsSetup(name, args, false, extra)
	if !ok {
		return code
	}
	defer func() { _ = log.Sync() }()
	if len(rest) != 1 {
		fmt.Fprintf(a.stderr, "airi %s: name one channel id (see airi channels)\n", name)
		return exitUsage
	}
	id := rest[0]
	st, err := openOps(ctx, cfg, log, true)
	if err != nil {
		fmt.Fprintf(a.stderr, "airi %s: %v\n", name, err)
		return exitFailure
	}
	defer st.Close()
	if _, err := st.Channel(ctx, id); err != nil {
		if errors.Is(err, state.ErrNotFound) {
			fmt.Fprintf(a.stderr, "airi %s: no channel %q in the database (see airi channels)\n", name, id)
			return exitFailure
		}
		fmt.Fprintf(a.stderr, "airi %s: %v\n", name, err)
		return exitFailure
	}
	out, err := run(ctx, &runtime.Controller{Store: st, Now: time.Now}, id)
	if err != nil {
		fmt.Fprintf(a.stderr, "airi %s: %v\n", name, err)
		return exitFailure
	}
	fmt.Fprintln(a.stdout, out)
	return exitOK
}

func (a *app) cmdChannelPause(ctx context.Context, args []string) int {
	var d time.Duration
	return a.channelCommand(ctx, "channel pause", args, func(fs *flag.FlagSet) {
		fs.DurationVar(&d, "for", 0, "pause for this long, e.g. 30m or 2h (default: until resumed)")
	}, func(ctx context.Context, c *runtime.Controller, id string) (string, error) {
		ctl, err := c.Pause(ctx, id, d)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s: %s", id, runtime.PauseText(ctl, c.Now())), nil
	})
}

func (a *app) cmdChannelResume(ctx context.Context, args []string) int {
	return a.channelCommand(ctx, "channel resume", args, nil, func(ctx context.Context, c *runtime.Controller, id string) (string, error) {
		if err := c.Resume(ctx, id); err != nil {
			return "", err
		}
		return id + ": resumed (a running bot answers its unread messages at its next periodic tick)", nil
	})
}

func (a *app) cmdChannelReset(ctx context.Context, args []string) int {
	return a.channelCommand(ctx, "channel reset", args, nil, func(ctx context.Context, c *runtime.Controller, id string) (string, error) {
		n, err := c.Store.ResetChannel(ctx, id)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s: action history cleared, %d unread message(s) set aside; messages kept", id, n), nil
	})
}

// forgetChannel runs `airi forget --channel ID`: the channel's messages,
// ticks and action history go; the channel stays known.
func (a *app) forgetChannel(ctx context.Context, cf commonFlags, channel string, asJSON bool) int {
	cfg, log, code := a.setup("forget", cf)
	if code != exitOK {
		return code
	}
	defer func() { _ = log.Sync() }()
	st, err := openOps(ctx, cfg, log, true)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi forget:", err)
		return exitFailure
	}
	defer st.Close()
	f, err := st.ForgetChannel(ctx, channel)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi forget:", err)
		return exitFailure
	}
	if asJSON {
		_ = json.NewEncoder(a.stdout).Encode(f)
		return exitOK
	}
	fmt.Fprintf(a.stdout, "forgot channel %s: %d message(s), %d tick(s), %d action record(s)\n", channel, f.Messages, f.Ticks, f.Actions)
	return exitOK
}

// cell is chat-supplied text (a title, an error naming a message) as one
// table cell on a terminal: no escape sequences or control characters,
// which could rewrite the screen, and no line breaks or tabs, which
// would break the table.
func cell(s string) string {
	return strings.NewReplacer("\n", " ", "\t", " ").Replace(term.Printable(s))
}
