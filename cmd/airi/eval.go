package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"go.uber.org/zap"

	"github.com/airi-go/airi/internal/tokens"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/scheduler/eval"
	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/state"
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

// evalJob is one run of one session with one prompt set.
type evalJob struct {
	variant, session, run int
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

	model := &limitedModel{m: client, sem: make(chan struct{}, max(cfg.Concurrency, 1))}
	rlog := runtimeLogger(cfg, log)
	opt := eval.Options{TickInterval: cfg.TickInterval, ContinueDelay: cfg.ContinueDelay}
	var jobs []evalJob
	for v := range res.Variants {
		for s := range sessions {
			for r := range *runs {
				jobs = append(jobs, evalJob{variant: v, session: s, run: r})
			}
		}
	}
	var bar *progressbar.ProgressBar
	if isTerminal(a.stderr) {
		bar = progressbar.NewOptions(len(jobs), progressbar.OptionSetWriter(a.stderr),
			progressbar.OptionSetDescription("evaluating"), progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
	}
	// Each slot is written by one worker only.
	done := make([][][]*eval.Run, len(res.Variants))
	fails := make([][][]string, len(res.Variants))
	for v := range done {
		done[v] = make([][]*eval.Run, len(sessions))
		fails[v] = make([][]string, len(sessions))
		for s := range sessions {
			done[v][s] = make([]*eval.Run, *runs)
			fails[v][s] = make([]string, *runs)
		}
	}
	queue := make(chan evalJob)
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	for range min(max(cfg.Concurrency, 1), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range queue {
				s := sessions[j.session]
				open := evalOpener(evalConfig(cfg, res.Variants[j.variant].Prompts), model, rlog)
				run, err := eval.Play(ctx, s.Session, open, opt)
				switch {
				case ctx.Err() != nil:
				case err != nil:
					fails[j.variant][j.session][j.run] = fmt.Sprintf("run %d: %v", j.run+1, err)
				default:
					done[j.variant][j.session][j.run] = run
				}
				if bar != nil {
					mu.Lock()
					_ = bar.Add(1)
					mu.Unlock()
				}
			}
		}()
	}
feed:
	for _, j := range jobs {
		select {
		case queue <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	if bar != nil {
		_ = bar.Finish()
	}
	res.Partial = ctx.Err() != nil
	failed := false
	for v, vr := range res.Variants {
		for s, sr := range vr.Sessions {
			for r := range *runs {
				if run := done[v][s][r]; run != nil {
					sr.Runs = append(sr.Runs, run)
				}
				if f := fails[v][s][r]; f != "" {
					sr.Errors = append(sr.Errors, f)
					failed = true
				}
			}
		}
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

// limitedModel bounds the model calls of every run together by
// AIRI_MODEL_CONCURRENCY; each runtime's scheduler bounds only its own.
type limitedModel struct {
	m   planner.Model
	sem chan struct{}
}

func (l *limitedModel) Complete(ctx context.Context, req planner.Request) (planner.Response, error) {
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return planner.Response{}, ctx.Err()
	}
	defer func() { <-l.sem }()
	return l.m.Complete(ctx, req)
}

// evalConfig is the configuration a prompt set is evaluated with. The
// scheduler must not wait between ticks: the engine lets the continue
// delay pass on its clock.
func evalConfig(cfg config, promptsDir string) config {
	if promptsDir != "" {
		cfg.PromptsDir = promptsDir
	}
	cfg.ContinueDelay = 0
	return cfg
}

// evalOpener opens, for each run, the real runtime on a fresh SQLite
// store in a temporary directory, with the live model, the engine's clock
// and its adapter.
func evalOpener(cfg config, model planner.Model, log *zap.Logger) eval.Opener {
	return func(ctx context.Context, w eval.Wiring) (eval.Runtime, error) {
		rt, dir, err := openScratchRuntime(ctx, sessionConfig(cfg, w.Header), log, "airi-eval-*", runtimeOptions{
			Model: model, Router: newRouter(adapter{sender: w.Sender}), Now: w.Now, OnTick: w.OnTick,
		})
		if err != nil {
			return nil, err
		}
		return &evalRuntime{rt: rt, dir: dir}, nil
	}
}

// evalRuntime is the wired runtime seen by the eval engine.
type evalRuntime struct {
	rt  *bot
	dir string
}

func (r *evalRuntime) Deliver(ctx context.Context, ch state.Channel, msg state.Message) error {
	return r.rt.sched.Deliver(ctx, ch, msg)
}

func (r *evalRuntime) NextDue() (string, time.Time, string, bool) { return r.rt.sched.NextDue() }

func (r *evalRuntime) RunDue(ctx context.Context, id string) (scheduler.WakeReport, bool) {
	return r.rt.sched.RunDue(ctx, id)
}

func (r *evalRuntime) PeriodicTick(ctx context.Context) error { return r.rt.sched.PeriodicTick(ctx) }

func (r *evalRuntime) Idle(ctx context.Context) (bool, error) { return r.rt.sched.Idle(ctx) }

func (r *evalRuntime) Unread(ctx context.Context, id string) ([]state.Message, error) {
	return r.rt.store.Unread(ctx, id, 0)
}

func (r *evalRuntime) Close() error {
	r.rt.close()
	return os.RemoveAll(r.dir)
}
