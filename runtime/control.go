package runtime

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/state"
)

// unpauser wakes a channel whose pause ended (the running scheduler).
type unpauser interface{ Unpause(channelID string) }

// Controller pauses, resumes and resets channels, for the command line,
// the admin API and the chat commands alike.
type Controller struct {
	Store state.Store
	// Scheduler is the running scheduler, nil from the command line: a
	// bot running beside it reads the pause at its next wake and finds
	// resumed channels at its periodic tick.
	Scheduler unpauser
	Now       func() time.Time
}

// Pause stops model calls for a channel, for d (0: until resumed).
func (c *Controller) Pause(ctx context.Context, id string, d time.Duration) (state.ChannelControl, error) {
	ctl, err := c.Store.ChannelControl(ctx, id)
	if err != nil {
		return ctl, err
	}
	ctl.Paused, ctl.PausedUntil = true, time.Time{}
	if d > 0 {
		ctl.PausedUntil = c.Now().Add(d).UTC()
	}
	return ctl, c.Store.SetChannelControl(ctx, ctl)
}

// Resume ends a channel's pause and wakes it when the bot runs here.
func (c *Controller) Resume(ctx context.Context, id string) error {
	ctl, err := c.Store.ChannelControl(ctx, id)
	if err != nil {
		return err
	}
	ctl.Paused, ctl.PausedUntil = false, time.Time{}
	if err := c.Store.SetChannelControl(ctx, ctl); err != nil {
		return err
	}
	if c.Scheduler != nil {
		c.Scheduler.Unpause(id)
	}
	return nil
}

// SetMode stores a channel's attention mode override ("" clears it).
func (c *Controller) SetMode(ctx context.Context, id, mode string) error {
	ctl, err := c.Store.ChannelControl(ctx, id)
	if err != nil {
		return err
	}
	ctl.Mode = mode
	return c.Store.SetChannelControl(ctx, ctl)
}

// PauseText describes a control's pause for people.
func PauseText(ctl state.ChannelControl, now time.Time) string {
	switch {
	case !ctl.PausedAt(now):
		return "not paused"
	case ctl.PausedUntil.IsZero():
		return "paused until resumed"
	}
	return fmt.Sprintf("paused until %s (%s from now)", ctl.PausedUntil.UTC().Format("2006-01-02 15:04:05 UTC"), ctl.PausedUntil.Sub(now).Round(time.Second))
}

// chatCommands answers "/airi ..." from the admins listed in AIRI_ADMINS.
// The runtime answers them itself; the model never sees them. From anyone
// else they are ordinary messages.
type chatCommands struct {
	admins map[string]bool // "platform:userid"
	ctl    *Controller
	send   func(ctx context.Context, out state.Outgoing) (string, error)
	log    *zap.Logger
}

// parseChatCommand returns the words after "/airi" (or "/airi@botname").
func parseChatCommand(text string) ([]string, bool) {
	fields := strings.Fields(text)
	if len(fields) == 0 {
		return nil, false
	}
	head, _, _ := strings.Cut(fields[0], "@")
	if !strings.EqualFold(head, "/airi") {
		return nil, false
	}
	return fields[1:], true
}

// handle answers msg when it is an admin's command and reports whether
// it was one; a command is not stored and never reaches the model.
func (c *chatCommands) handle(ctx context.Context, ch state.Channel, msg state.Message) bool {
	if c == nil || len(c.admins) == 0 || msg.Self {
		return false
	}
	args, ok := parseChatCommand(msg.Content)
	if !ok || !c.admins[msg.SenderID] {
		return false
	}
	reply := c.run(ctx, ch.ID, args)
	c.log.Info("admin command", zap.String("channel", ch.ID), zap.String("title", ch.Title),
		zap.String("sender", msg.SenderID), zap.String("sender_name", msg.SenderName), zap.Strings("args", args))
	if _, err := c.send(ctx, state.Outgoing{ChannelID: ch.ID, Content: reply}); err != nil && ctx.Err() == nil {
		c.log.Warn("answer admin command", zap.String("channel", ch.ID), zap.Error(err))
	}
	return true
}

const chatCommandUsage = "/airi status | pause [DURATION] | resume | reset | mode addressed|ambient|all"

// run executes one command in a channel and returns the answer.
func (c *chatCommands) run(ctx context.Context, id string, args []string) string {
	if len(args) == 0 {
		return "usage: " + chatCommandUsage
	}
	now := c.ctl.Now()
	switch args[0] {
	case "status":
		ctl, err := c.ctl.Store.ChannelControl(ctx, id)
		if err != nil {
			return "status failed: " + err.Error()
		}
		counts, err := c.ctl.Store.UnreadCounts(ctx)
		if err != nil {
			return "status failed: " + err.Error()
		}
		text := fmt.Sprintf("channel %s: %s, %d unread", id, PauseText(ctl, now), counts[id])
		if ctl.Mode != "" {
			text += ", mode " + ctl.Mode
		}
		act, err := c.ctl.Store.Activity(ctx, StartOfDay(now))
		if err == nil {
			if a, ok := act[id]; ok && a.LastTick != nil {
				text += fmt.Sprintf(", last tick %s ago (%s), %d tokens today", now.Sub(a.LastTick.Now).Round(time.Second), a.LastTick.Outcome, a.Tokens)
			}
		}
		return text
	case "pause":
		var d time.Duration
		if len(args) > 1 {
			var err error
			if d, err = parseDays(args[1]); err != nil || d <= 0 {
				return fmt.Sprintf("pause: %q is not a duration; use e.g. /airi pause 30m, /airi pause 2h or /airi pause 1d", args[1])
			}
		}
		ctl, err := c.ctl.Pause(ctx, id, d)
		if err != nil {
			return "pause failed: " + err.Error()
		}
		return "ok, " + PauseText(ctl, now) + "; messages are still kept"
	case "resume":
		if err := c.ctl.Resume(ctx, id); err != nil {
			return "resume failed: " + err.Error()
		}
		return "ok, resumed"
	case "reset":
		n, err := c.ctl.Store.ResetChannel(ctx, id)
		if err != nil {
			return "reset failed: " + err.Error()
		}
		return fmt.Sprintf("ok, action history cleared and %d unread message(s) set aside; the messages stay in the history", n)
	case "mode":
		if len(args) < 2 {
			return "usage: /airi mode addressed|ambient|all"
		}
		mode := strings.ToLower(args[1])
		switch mode {
		case state.ModeAddressed, state.ModeAmbient, state.ModeAll:
		default:
			return fmt.Sprintf("mode: %q is not one of addressed, ambient, all", args[1])
		}
		if err := c.ctl.SetMode(ctx, id, mode); err != nil {
			return "mode failed: " + err.Error()
		}
		return "ok, attention mode " + mode + " for this chat (in place of the configured one)"
	}
	return "unknown command; usage: " + chatCommandUsage
}

// StartOfDay is midnight UTC of now's day, from which "today" counts.
func StartOfDay(now time.Time) time.Time {
	y, m, d := now.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// parseDays reads a pause's duration: a Go duration or a number of days
// ("1d").
func parseDays(s string) (time.Duration, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%q: want a positive number of days", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}

// adminSet reads the admins' ids.
func adminSet(ids []string) map[string]bool {
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out
}
