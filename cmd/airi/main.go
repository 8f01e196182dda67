// Command airi runs chat agents that decide, tick by tick, what to do next.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// app carries the process's standard streams and environment so that every
// command can run in tests without touching the real ones.
type app struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

// Exit codes shared by every command.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

const usage = `airi: a runtime for chat agents that decide, tick by tick, what to do next.

Usage:
  airi demo                  play a recorded session offline through the real runtime
  airi chat                  chat with the bot in the terminal (needs a model)
  airi run                   run the bot on the configured adapters
  airi parse [--jsonl]       parse model answers into actions
  airi actions               print the registered actions and their schemas
  airi prompt render         print the request a tick would send
  airi replay FILE...        replay recorded sessions and report differences
  airi eval FILE...          score labelled sessions against the configured model
  airi ticks export          export recorded ticks as JSONL
  airi memory list|show|delete|export|import   the bot's memory notes
  airi forget --user ID      delete a person's notes and messages everywhere
  airi migrate               apply pending database migrations
  airi bench                 measure the runtime under load against built-in fakes
  airi version               print the version

Configuration comes from environment variables (see the README), optionally
from a YAML file given with --config FILE.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := &app{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
	os.Exit(a.run(ctx, os.Args[1:]))
}

func (a *app) run(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(a.stderr, usage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "demo":
		return a.cmdDemo(ctx, rest)
	case "chat":
		return a.cmdChat(ctx, rest)
	case "run":
		return a.cmdRun(ctx, rest)
	case "parse":
		return a.cmdParse(ctx, rest)
	case "actions":
		return a.cmdActions(ctx, rest)
	case "prompt":
		if len(rest) == 0 || rest[0] != "render" {
			fmt.Fprintln(a.stderr, "airi prompt: usage: airi prompt render [--platform P] [--group] [--state FILE] [--json]")
			return exitUsage
		}
		return a.cmdPromptRender(ctx, rest[1:])
	case "replay":
		return a.cmdReplay(ctx, rest)
	case "eval":
		return a.cmdEval(ctx, rest)
	case "ticks":
		if len(rest) == 0 || rest[0] != "export" {
			fmt.Fprintln(a.stderr, "airi ticks: usage: airi ticks export [--channel ID] [--since RFC3339]")
			return exitUsage
		}
		return a.cmdTicksExport(ctx, rest[1:])
	case "migrate":
		return a.cmdMigrate(ctx, rest)
	case "memory":
		return a.cmdMemory(ctx, rest)
	case "forget":
		return a.cmdForget(ctx, rest)
	case "bench":
		return a.cmdBench(ctx, rest)
	case "version", "--version", "-v":
		fmt.Fprintln(a.stdout, "airi", version)
		return exitOK
	case "help", "--help", "-h":
		fmt.Fprint(a.stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(a.stderr, "airi: unknown command %q\n\n%s", cmd, usage)
		return exitUsage
	}
}
