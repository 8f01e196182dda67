// Command airi runs chat agents that decide, tick by tick, what to do next.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
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
	// environ lists the environment as KEY=value pairs, to find the
	// variables that look like settings but name none; nil lists none.
	environ func() []string
}

// Exit codes shared by every command.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := &app{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, environ: os.Environ}
	os.Exit(a.run(ctx, os.Args[1:]))
}

func (a *app) run(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(a.stderr, usageText())
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "help", "--help", "-h":
		if len(rest) == 0 {
			fmt.Fprint(a.stdout, usageText())
			return exitOK
		}
		// "airi help db backup" is "airi db backup --help".
		return a.run(ctx, append(append([]string(nil), rest...), "--help"))
	case "version", "--version", "-v":
		return a.cmdVersion(ctx, rest)
	}
	if !slices.ContainsFunc(rest, isHelpFlag) {
		for _, w := range a.unknownVariables() {
			fmt.Fprintln(a.stderr, "airi: warning:", w)
		}
	}
	if subs := subcommands(cmd); len(subs) > 0 {
		if len(rest) == 0 || strings.HasPrefix(rest[0], "-") {
			if len(rest) > 0 && isHelpFlag(rest[0]) {
				groupUsage(a.stdout, cmd)
				return exitOK
			}
			fmt.Fprintf(a.stderr, "airi %s: name a subcommand\n", cmd)
			groupUsage(a.stderr, cmd)
			return exitUsage
		}
		name := cmd + " " + rest[0]
		if run, ok := a.handlers()[name]; ok {
			return run(ctx, rest[1:])
		}
		var names []string
		for _, c := range subs {
			names = append(names, strings.TrimPrefix(c.name, cmd+" "))
		}
		fmt.Fprintf(a.stderr, "airi %s: unknown subcommand %q%s\n", cmd, rest[0], didYouMean(rest[0], names))
		groupUsage(a.stderr, cmd)
		return exitUsage
	}
	if run, ok := a.handlers()[cmd]; ok {
		return run(ctx, rest)
	}
	fmt.Fprintf(a.stderr, "airi: unknown command %q%s\n\n%s", cmd, didYouMean(cmd, commandWords()), usageText())
	return exitUsage
}

func isHelpFlag(arg string) bool { return arg == "--help" || arg == "-h" || arg == "-help" }

// handlers maps every command name of the usage text to its function.
func (a *app) handlers() map[string]func(context.Context, []string) int {
	return map[string]func(context.Context, []string) int{
		"demo":            a.cmdDemo,
		"chat":            a.cmdChat,
		"run":             a.cmdRun,
		"status":          a.cmdStatus,
		"channels":        a.cmdChannels,
		"channel pause":   a.cmdChannelPause,
		"channel resume":  a.cmdChannelResume,
		"channel reset":   a.cmdChannelReset,
		"forget":          a.cmdForget,
		"db backup":       a.cmdDBBackup,
		"db stats":        a.cmdDBStats,
		"config check":    a.cmdConfigCheck,
		"config docs":     a.cmdConfigDocs,
		"health":          a.cmdHealth,
		"parse":           a.cmdParse,
		"actions":         a.cmdActions,
		"prompt render":   a.cmdPromptRender,
		"prompt init":     a.cmdPromptInit,
		"replay":          a.cmdReplay,
		"eval":            a.cmdEval,
		"memory list":     a.memorySub("list"),
		"memory show":     a.memorySub("show"),
		"memory delete":   a.memorySub("delete"),
		"memory export":   a.memorySub("export"),
		"memory import":   a.memorySub("import"),
		"ticks export":    a.cmdTicksExport,
		"schedule list":   a.cmdScheduleList,
		"schedule cancel": a.cmdScheduleCancel,
		"migrate":         a.cmdMigrate,
		"bench":           a.cmdBench,
		"tools":           a.cmdTools,
		"version":         a.cmdVersion,
	}
}

// memorySub runs one subcommand of airi memory.
func (a *app) memorySub(name string) func(context.Context, []string) int {
	return func(ctx context.Context, args []string) int {
		return a.cmdMemory(ctx, append([]string{name}, args...))
	}
}
