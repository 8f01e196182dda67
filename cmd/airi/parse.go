package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/planner/jsonl"
	"github.com/airi-go/airi/planner/parse"
)

// cmdParse parses model answers into actions: one answer on stdin, or with
// --jsonl one {"raw": "..."} object per line.
func (a *app) cmdParse(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("parse", flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	batch := fs.Bool("jsonl", false, `read one {"raw": "..."} object per line (with an optional "finish") and write one result line per input`)
	finishFlag := fs.String("finish", "", "how the answers ended, as the provider's finish_reason: stop (the model ended it: an unterminated end is closed) or length (cut at the limit: it is refused)")
	fs.Usage = func() {
		fmt.Fprintln(a.stderr, "usage: airi parse [--finish stop|length] [--jsonl] < answers")
		fs.PrintDefaults()
	}
	if code, ok := a.parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return exitUsage
	}
	finish, err := parse.ParseFinish(*finishFlag)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi parse: --finish:", err)
		return exitUsage
	}
	reg, err := actions.NewBuiltinRegistry(actions.Handlers{})
	if err != nil {
		fmt.Fprintln(a.stderr, "airi parse:", err)
		return exitFailure
	}
	lp := jsonl.New(reg)
	lp.SetFinish(finish)
	if *batch {
		// Batch work allocates many short-lived values; trading memory for
		// fewer collections keeps both cores on parsing.
		defer debug.SetGCPercent(debug.SetGCPercent(400))
		if err := lp.Run(ctx, a.stdin, a.stdout, runtime.GOMAXPROCS(0)); err != nil {
			fmt.Fprintln(a.stderr, "airi parse:", err)
			return exitFailure
		}
		return exitOK
	}
	raw, err := io.ReadAll(a.stdin)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi parse: read stdin:", err)
		return exitFailure
	}
	res, err := lp.Parse(string(raw))
	if err != nil {
		fmt.Fprintln(a.stderr, "airi parse:", err)
		return exitFailure
	}
	out, err := lp.AppendResult(nil, res)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi parse:", err)
		return exitFailure
	}
	if _, err := a.stdout.Write(out); err != nil {
		fmt.Fprintln(a.stderr, "airi parse: write:", err)
		return exitFailure
	}
	return exitOK
}
