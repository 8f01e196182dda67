package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/schollz/progressbar/v3"
	"go.uber.org/zap"

	"github.com/airi-go/airi/internal/tokens"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/scheduler/eval"
	"github.com/airi-go/airi/scheduler/replay"
)

// listFlag collects a flag given several times.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// priceFlag is a price per million tokens; unset is nil.
type priceFlag struct{ v *float64 }

func (p *priceFlag) String() string {
	if p.v == nil {
		return ""
	}
	return strconv.FormatFloat(*p.v, 'g', -1, 64)
}

func (p *priceFlag) Set(s string) error {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || x < 0 {
		return fmt.Errorf("want a price per million tokens, such as 0.15")
	}
	p.v = &x
	return nil
}

// cmdEval plays labelled sessions through the runtime against the
// configured model and reports behaviour and cost.
func (a *app) cmdEval(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	var cf commonFlags
	cf.register(fs)
	runs := fs.Int("runs", 3, "runs of each session, to show the spread")
	var dirs listFlag
	fs.Var(&dirs, "prompts", "prompt directory to evaluate (repeat to compare several side by side; default: the configured prompts)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of tables")
	htmlFile := fs.String("html", "", "also write a self-contained HTML report with every tick to this file")
	var priceIn, priceOut, priceCached priceFlag
	fs.Var(&priceIn, "price-in", "price per million prompt tokens")
	fs.Var(&priceOut, "price-out", "price per million completion tokens")
	fs.Var(&priceCached, "price-cached", "price per million cached prompt tokens (default: --price-in)")
	fs.Usage = func() {
		fmt.Fprintln(a.stderr, "usage: airi eval [--runs N] [--prompts DIR]... [--json] [--html FILE] [--price-in X --price-out Y [--price-cached Z]] [--config FILE] FILE...")
		fs.PrintDefaults()
	}
	if code, ok := a.parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	if *runs < 1 {
		fmt.Fprintln(a.stderr, "airi eval: --runs must be at least 1")
		return exitUsage
	}
	if (priceIn.v == nil) != (priceOut.v == nil) || (priceCached.v != nil && priceIn.v == nil) {
		fmt.Fprintln(a.stderr, "airi eval: money needs both --price-in and --price-out (and --price-cached only with them)")
		return exitUsage
	}
	cfg, log, code := a.setup("eval", cf)
	if code != exitOK {
		return code
	}
	defer func() { _ = log.Sync() }()
	if err := cfg.requireModel(); err != nil {
		fmt.Fprintf(a.stderr, "airi eval needs a model:\n%v\n", err)
		return exitUsage
	}
	client, err := newModel(cfg, log)
	if err != nil {
		fmt.Fprintf(a.stderr, "airi eval: invalid model settings:\n%v\n", err)
		return exitUsage
	}
	if len(dirs) == 0 {
		dirs = listFlag{""}
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if _, err := prompts.Load(d, zap.NewNop()); err != nil {
			fmt.Fprintf(a.stderr, "airi eval: prompts %s: %v\n", d, err)
			return exitUsage
		}
	}
	res := &eval.Result{Runs: *runs, Prices: eval.Prices{In: priceIn.v, Out: priceOut.v, Cached: priceCached.v}}
	var sessions []*eval.SessionResult
	for _, file := range fs.Args() {
		ss, err := replay.ReadFile(file)
		if err != nil {
			fmt.Fprintf(a.stderr, "airi eval: %v\n", err)
			return exitFailure
		}
		for i, s := range ss {
			name := file
			if len(ss) > 1 {
				name = fmt.Sprintf("%s#%d", file, i+1)
			}
			sessions = append(sessions, &eval.SessionResult{Name: name, Session: s})
		}
	}
	for _, d := range dirs {
		v := &eval.Variant{Prompts: d}
		for _, s := range sessions {
			v.Sessions = append(v.Sessions, &eval.SessionResult{Name: s.Name, Session: s.Session})
		}
		res.Variants = append(res.Variants, v)
	}

	var bar *progressbar.ProgressBar
	if isTerminal(a.stderr) {
		bar = progressbar.NewOptions(len(res.Variants)*len(sessions)**runs, progressbar.OptionSetWriter(a.stderr),
			progressbar.OptionSetDescription("evaluating"), progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
	}
	variants := make([]runtime.Config, len(res.Variants))
	for v, vr := range res.Variants {
		variants[v] = evalConfig(cfg, vr.Prompts)
	}
	failed := runtime.Evaluate(ctx, res, variants, client, runtime.EvalOptions{
		Concurrency: cfg.Concurrency, Logger: runtimeLogger(cfg, log),
		Play: eval.Options{TickInterval: cfg.TickInterval, ContinueDelay: cfg.ContinueDelay},
		OnRun: func() {
			if bar != nil {
				_ = bar.Add(1)
			}
		},
	})
	if bar != nil {
		_ = bar.Finish()
	}
	tok := tokens.New()
	if *htmlFile != "" {
		if err := writeHTMLReport(*htmlFile, res, tok); err != nil {
			fmt.Fprintf(a.stderr, "airi eval: %v\n", err)
			failed = true
		}
	}
	if *asJSON {
		err = res.WriteJSON(a.stdout, tok)
	} else {
		err = res.WriteText(a.stdout, tok)
	}
	if err != nil {
		fmt.Fprintf(a.stderr, "airi eval: %v\n", err)
		return exitFailure
	}
	if failed || res.Partial {
		return exitFailure
	}
	return exitOK
}

// writeHTMLReport writes the report to a file, replacing it whole.
func writeHTMLReport(path string, res *eval.Result, tok *tokens.Counter) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".airi-eval-*.html")
	if err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := res.WriteHTML(tmp, tok); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	return nil
}

// evalConfig is the bot a prompt set is evaluated with.
func evalConfig(cfg config, promptsDir string) runtime.Config {
	rc := cfg.runtime()
	if promptsDir != "" {
		rc.PromptsDir = promptsDir
	}
	return rc
}
