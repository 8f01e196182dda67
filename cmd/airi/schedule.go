package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/airi-go/airi/schedule"
	"github.com/airi-go/airi/state"
)

// cmdScheduleList runs `airi schedule list [--channel ID] [--json]`: the
// pending reminders, the earliest first.
func (a *app) cmdScheduleList(ctx context.Context, args []string) int {
	fs := a.flags("schedule list")
	var cf commonFlags
	cf.register(fs)
	channel := fs.String("channel", "", "only this channel's reminders")
	asJSON := fs.Bool("json", false, "print the reminders as a JSON array")
	if code, ok := a.parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(a.stderr, "airi schedule list: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	cfg, log, code := a.setup("schedule list", cf)
	if code != exitOK {
		return code
	}
	defer func() { _ = log.Sync() }()
	store, err := openStore(ctx, cfg, log, true)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi schedule list:", err)
		return exitFailure
	}
	defer store.Close()
	rs, err := store.ListReminders(ctx, state.ReminderFilter{ChannelID: strings.TrimSpace(*channel), Pending: true})
	if err != nil {
		fmt.Fprintln(a.stderr, "airi schedule list:", err)
		return exitFailure
	}
	if *asJSON {
		if rs == nil {
			rs = []state.Reminder{}
		}
		enc := json.NewEncoder(a.stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rs); err != nil {
			fmt.Fprintln(a.stderr, "airi schedule list:", err)
			return exitFailure
		}
		return exitOK
	}
	if len(rs) == 0 {
		fmt.Fprintln(a.stdout, "no pending reminders")
		return exitOK
	}
	for _, r := range rs {
		loc, err := time.LoadLocation(r.Zone)
		if err != nil {
			loc = time.UTC
		}
		line := fmt.Sprintf("%d\t%s\t%s", r.ID, r.ChannelID, schedule.Format(r.Due, loc))
		if r.Every != "" {
			line += "\tevery " + r.Every
		}
		if r.Compose {
			line += "\tcomposed"
		}
		fmt.Fprintf(a.stdout, "%s\t%s\n", line, strconv.Quote(r.Content))
	}
	return exitOK
}

// cmdScheduleCancel runs `airi schedule cancel ID`.
func (a *app) cmdScheduleCancel(ctx context.Context, args []string) int {
	fs := a.flags("schedule cancel")
	var cf commonFlags
	cf.register(fs)
	if code, ok := a.parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(a.stderr, "airi schedule cancel: usage: airi schedule cancel ID")
		return exitUsage
	}
	id, err := strconv.ParseInt(fs.Arg(0), 10, 64)
	if err != nil || id <= 0 {
		fmt.Fprintf(a.stderr, "airi schedule cancel: %q is not a reminder id (airi schedule list shows them)\n", fs.Arg(0))
		return exitUsage
	}
	cfg, log, code := a.setup("schedule cancel", cf)
	if code != exitOK {
		return code
	}
	defer func() { _ = log.Sync() }()
	store, err := openStore(ctx, cfg, log, true)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi schedule cancel:", err)
		return exitFailure
	}
	defer store.Close()
	if err := store.CancelReminder(ctx, id, ""); err != nil {
		if errors.Is(err, state.ErrNotFound) {
			fmt.Fprintf(a.stderr, "airi schedule cancel: no pending reminder %d\n", id)
		} else {
			fmt.Fprintln(a.stderr, "airi schedule cancel:", err)
		}
		return exitFailure
	}
	fmt.Fprintf(a.stdout, "cancelled reminder %d\n", id)
	return exitOK
}
