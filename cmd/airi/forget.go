package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
)

// cmdForget deletes what the bot keeps about a person: `airi forget
// --user ID` removes the notes about them, the messages they sent in every
// channel, and the whole record of the direct chats only they wrote in.
func (a *app) cmdForget(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("forget", flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	var cf commonFlags
	cf.register(fs)
	user := fs.String("user", "", "forget this person (their user id, as airi memory list shows)")
	asJSON := fs.Bool("json", false, "print what was deleted as JSON")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(a.stderr, "airi forget: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if strings.TrimSpace(*user) == "" {
		fmt.Fprintln(a.stderr, "airi forget: usage: airi forget --user ID [--json]")
		return exitUsage
	}
	return a.forgetUser(ctx, cf, *user, *asJSON)
}

// forgetUser runs `airi forget --user ID`.
func (a *app) forgetUser(ctx context.Context, cf commonFlags, user string, asJSON bool) int {
	cfg, log, code := a.setup("forget", cf)
	if code != exitOK {
		return code
	}
	defer func() { _ = log.Sync() }()
	store, lock, err := openStore(ctx, cfg, log, true)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi forget:", err)
		return exitFailure
	}
	defer lock.release()
	defer store.Close()
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
