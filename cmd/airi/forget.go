package main

import (
	"context"
	"fmt"
	"strings"
)

// cmdForget deletes what the bot keeps about a person: `airi forget
// --user ID` removes the notes about them, the messages they sent in every
// channel, and the whole record of the direct chats only they wrote in;
// `airi forget --channel ID` deletes a channel's messages, ticks and
// action history.
func (a *app) cmdForget(ctx context.Context, args []string) int {
	fs := a.flags("forget")
	var cf commonFlags
	cf.register(fs)
	user := fs.String("user", "", "forget this person (their platform-qualified user id, such as telegram:501, as airi memory list shows)")
	channel := fs.String("channel", "", "forget this channel's messages, ticks and action history (the channel stays known)")
	asJSON := fs.Bool("json", false, "print what was deleted as JSON")
	if code, ok := a.parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(a.stderr, "airi forget: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	u, c := strings.TrimSpace(*user), strings.TrimSpace(*channel)
	switch {
	case u != "" && c == "":
		return a.forgetUser(ctx, cf, u, *asJSON)
	case c != "" && u == "":
		return a.forgetChannel(ctx, cf, c, *asJSON)
	}
	fmt.Fprintln(a.stderr, "airi forget: usage: airi forget --user ID | --channel ID [--json]")
	return exitUsage
}

// forgetUser runs `airi forget --user ID`.
func (a *app) forgetUser(ctx context.Context, cf commonFlags, user string, asJSON bool) int {
	cfg, log, code := a.setup("forget", cf)
	if code != exitOK {
		return code
	}
	defer func() { _ = log.Sync() }()
	store, err := openStore(ctx, cfg, log, true)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi forget:", err)
		return exitFailure
	}
	defer store.Close()
	if !strings.Contains(user, ":") {
		// Sender ids are platform-qualified: a bare id is the one person
		// it names, or refused when people of several platforms have it.
		ids, err := store.UserIDs(ctx, user)
		if err != nil {
			fmt.Fprintln(a.stderr, "airi forget:", err)
			return exitFailure
		}
		switch {
		case len(ids) > 1:
			fmt.Fprintf(a.stderr, "airi forget: user id %s is ambiguous: it names %s; say which, e.g. --user %s\n", user, strings.Join(ids, ", "), ids[0])
			return exitUsage
		case len(ids) == 1:
			user = ids[0]
		}
	}
	got, err := store.ForgetUser(ctx, user)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi forget:", err)
		return exitFailure
	}
	if asJSON {
		return a.printJSON(&memoryCmd{name: "forget"}, got)
	}
	fmt.Fprintf(a.stdout, "forgot user %s: %d note(s), %d message(s)", user, got.Notes, got.Messages)
	if len(got.Channels) > 0 {
		fmt.Fprintf(a.stdout, "; deleted the direct chat(s) %s with their history, actions and ticks", strings.Join(got.Channels, ", "))
	}
	fmt.Fprintln(a.stdout)
	return exitOK
}
