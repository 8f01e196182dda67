package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// command describes one command for `airi help CMD` and `airi CMD --help`.
type command struct {
	name string // as typed: "chat", "db backup"
	args string // the positional arguments, "" when none
	desc string // one line
}

// commands lists every command, in the order of the usage text.
var commands = []command{
	{"demo", "", "play a recorded session offline through the real runtime"},
	{"chat", "", "chat with the bot in the terminal (needs a model)"},
	{"run", "", "run the bot on the configured adapters"},
	{"status", "", "show each channel: unread, last tick, last error, paused, tokens today"},
	{"channels", "", "list the known channels"},
	{"channel pause", "ID", "stop model calls for a channel (messages are still stored)"},
	{"channel resume", "ID", "let a paused channel be answered again"},
	{"channel reset", "ID", "clear a channel's action history and unread messages (messages stay)"},
	{"db backup", "FILE", "write a consistent copy of the SQLite database, also while the bot runs"},
	{"db stats", "", "rows and bytes per table, bytes per tick, what retention deleted"},
	{"config check", "", "validate the settings and make one small test call to the model"},
	{"config docs", "", "print the reference of every setting as a markdown table"},
	{"health", "", "ask a running bot whether it is ready (exit 0) or not (exit 1)"},
	{"parse", "", "parse model answers into actions"},
	{"actions", "", "print the registered actions and their schemas"},
	{"tools", "", "list the MCP servers, their tools and who may use each"},
	{"prompt render", "", "print the request a tick would send"},
	{"prompt init", "DIR", "write the embedded templates into DIR, to edit them there with PROMPTS_DIR=DIR"},
	{"replay", "FILE...", "replay recorded sessions and report differences"},
	{"eval", "FILE...", "score labelled sessions against the configured model"},
	{"memory list", "", "list the bot's memory notes"},
	{"memory show", "ID", "show one memory note"},
	{"memory delete", "ID", "delete one memory note"},
	{"memory export", "", "write every memory note as markdown"},
	{"memory import", "FILE", "add the notes of an export"},
	{"forget", "", "delete what the bot keeps about a person (--user) or a channel's messages and ticks (--channel)"},
	{"ticks export", "", "export recorded ticks as JSONL"},
	{"schedule list", "", "list the pending reminders (--channel ID for one chat)"},
	{"schedule cancel", "ID", "cancel a pending reminder"},
	{"migrate", "", "apply pending database migrations"},
	{"bench", "", "measure the runtime under load against built-in fakes"},
	{"version", "", "print the version, the VCS revision and the build time"},
}

// usageText is the top-level usage, generated from commands.
func usageText() string {
	var b strings.Builder
	b.WriteString("airi: a runtime for chat agents that decide, tick by tick, what to do next.\n\nUsage:\n")
	for _, c := range commands {
		left := "airi " + c.name
		if c.args != "" {
			left += " " + c.args
		}
		fmt.Fprintf(&b, "  %-26s %s\n", left, c.desc)
	}
	b.WriteString(`
Run "airi help COMMAND" or "airi COMMAND --help" for a command's flags.
Configuration comes from environment variables ("airi config docs" lists
them), optionally from a YAML file given with --config FILE.
`)
	return b.String()
}

func findCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// commandWords are the words that may start a command line: each
// command or group name, and help.
func commandWords() []string {
	words := []string{"help"}
	for _, c := range commands {
		w, _, _ := strings.Cut(c.name, " ")
		if !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	return words
}

// subcommands returns the commands under a group ("db" gives "db backup",
// "db stats").
func subcommands(group string) []command {
	var out []command
	for _, c := range commands {
		if strings.HasPrefix(c.name, group+" ") {
			out = append(out, c)
		}
	}
	return out
}

// flags makes the flag set of a command. Errors are printed by
// parseFlags, and --help prints the command's usage to stdout.
func (a *app) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	return fs
}

// parseFlags parses a command's flags. ok is false when the command must
// stop and return code: after --help (usage on stdout, exit 0) or a bad
// flag (the problem and a hint on stderr, exit 2).
func (a *app) parseFlags(fs *flag.FlagSet, args []string) (code int, ok bool) {
	var discard bytes.Buffer
	out := fs.Output()
	// The flag package prints the whole usage on any error; print it
	// ourselves, to stdout when asked for.
	usage := fs.Usage
	fs.Usage = func() {}
	fs.SetOutput(&discard)
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case err == nil:
		return exitOK, true
	case errors.Is(err, flag.ErrHelp):
		commandUsage(a.stdout, fs)
		return exitOK, false
	default:
		fmt.Fprintf(a.stderr, "airi %s: %v%s\nrun \"airi %s --help\" for its flags\n", fs.Name(), err, flagSuggestion(fs, err), fs.Name())
		return exitUsage, false
	}
}

// flagSuggestion names the flag of fs closest to the undefined one err
// reports, as " (did you mean --json?)", or is "".
func flagSuggestion(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return ""
	}
	name = strings.TrimLeft(name, "-")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if c, ok := closest(name, names); ok {
		return " (did you mean --" + c + "?)"
	}
	return ""
}

// commandUsage prints a command's usage line, description and flags.
func commandUsage(w io.Writer, fs *flag.FlagSet) {
	c, ok := findCommand(fs.Name())
	line := "airi " + fs.Name()
	if ok && c.args != "" {
		line += " " + c.args
	}
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		line += " [flags]"
	}
	fmt.Fprintf(w, "Usage: %s\n", line)
	if ok {
		fmt.Fprintf(w, "\n%s.\n", upperFirst(c.desc))
	}
	if hasFlags {
		fmt.Fprint(w, "\nFlags:\n")
		out := fs.Output()
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(out)
	}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// groupUsage prints the subcommands of a group ("airi db").
func groupUsage(w io.Writer, group string) {
	fmt.Fprintf(w, "Usage:\n")
	for _, c := range subcommands(group) {
		left := "airi " + c.name
		if c.args != "" {
			left += " " + c.args
		}
		fmt.Fprintf(w, "  %-26s %s\n", left, c.desc)
	}
	fmt.Fprintf(w, "\nRun \"airi help %s SUBCOMMAND\" for its flags.\n", group)
}
