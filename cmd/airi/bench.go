package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/airi-go/airi/bench"
)

// benchFlags are the flags of airi bench.
type benchFlags struct {
	spec        bench.Spec
	jsonOut     bool
	baseline    string
	profiles    bench.Profiles
	peakProfile string
}

func (a *app) cmdBench(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	var cf commonFlags
	cf.register(fs)
	var f benchFlags
	fs.IntVar(&f.spec.Burst, "burst", 0, "N private chats send one message each at once")
	fs.IntVar(&f.spec.Steady, "steady", 0, "M channels receive --rate messages a second in all for --duration")
	fs.Float64Var(&f.spec.Rate, "rate", 50, "messages a second in all (with --steady)")
	fs.DurationVar(&f.spec.Duration, "duration", 20*time.Second, "how long messages arrive (with --steady)")
	fs.DurationVar(&f.spec.Latency, "latency", 0, "how long the built-in model takes to answer")
	habit := fs.String("model", string(bench.HabitReply), "the built-in model's habit in a wake: reply (at once), read-reply (read_unread_messages, then reply) or read-reply-continue (read, reply, then continue)")
	fs.DurationVar(&f.spec.Drain, "drain", 2*time.Minute, "how long to wait for the last answers once messages stop")
	seed := fs.Uint64("seed", 1, "seed of the steady scenario's choice of channels")
	fs.BoolVar(&f.jsonOut, "json", false, "print the results as one JSON object")
	fs.StringVar(&f.baseline, "baseline", "", "JSON results of an earlier run (--json) to print ratios against")
	fs.StringVar(&f.profiles.CPU, "cpuprofile", "", "write a CPU profile of the scenario to this file")
	fs.StringVar(&f.profiles.Mem, "memprofile", "", "write a heap profile (allocations) at the end to this file")
	fs.StringVar(&f.peakProfile, "memprofile-peak", "", "write a heap profile (memory in use) taken when the live heap peaked to this file")
	fs.StringVar(&f.profiles.Block, "blockprofile", "", "write a profile of blocking (channels, locks) to this file")
	if code, ok := a.parseFlags(fs, args); !ok {
		return code
	}
	f.spec.Seed = *seed
	h, herr := bench.ParseHabit(*habit)
	f.spec.Habit = h
	if err := errors.Join(herr, validateSpec(f.spec, fs.NArg())); err != nil {
		fmt.Fprintf(a.stderr, "airi bench: %v\n", err)
		return exitUsage
	}
	var base *bench.Result
	if f.baseline != "" {
		b, err := bench.ReadBaseline(f.baseline)
		if err != nil {
			fmt.Fprintf(a.stderr, "airi bench: %v\n", err)
			return exitUsage
		}
		base = &b
	}

	cfg, err := loadConfig(cf.configFile, a.getenv)
	if err != nil {
		fmt.Fprintf(a.stderr, "airi bench: invalid configuration:\n%v\n", err)
		return exitUsage
	}
	// Logs cost CPU the figures would count: only warnings, unless asked.
	if a.getenv("LOG_LEVEL") == "" {
		cfg.LogLevel = "warn"
	}
	log, err := newLogger(a.stderr, cfg.LogLevel, cfg.LogFormat)
	if err != nil {
		fmt.Fprintf(a.stderr, "airi bench: %v\n", err)
		return exitUsage
	}
	defer func() { _ = log.Sync() }()

	dir, err := os.MkdirTemp("", "airi-bench-")
	if err != nil {
		fmt.Fprintf(a.stderr, "airi bench: %v\n", err)
		return exitFailure
	}
	defer func() { _ = os.RemoveAll(dir) }()

	stop, err := bench.StartProfiles(f.profiles)
	if err != nil {
		fmt.Fprintf(a.stderr, "airi bench: %v\n", err)
		return exitFailure
	}
	peaks := bench.NewMemPeaks(f.peakProfile)
	res, err := bench.Run(ctx, cfg.runtime(), f.spec, dir, peaks, log)
	if perr := errors.Join(stop(), peaks.WriteProfile()); perr != nil && err == nil {
		err = perr
	}
	if err != nil {
		fmt.Fprintf(a.stderr, "airi bench: %v\n", err)
		return exitFailure
	}
	if f.jsonOut {
		out := any(res)
		if base != nil {
			out = struct {
				bench.Result
				Ratios map[string]float64 `json:"ratios"`
			}{res, bench.Ratios(res, *base)}
		}
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(a.stderr, "airi bench: %v\n", err)
			return exitFailure
		}
	} else {
		printBench(a.stdout, res, base)
	}
	if res.Lost > 0 || res.ChatsUnanswered > 0 {
		fmt.Fprintf(a.stderr, "airi bench: %d messages never shown to the model, %d chats left without an answer within --drain %s\n",
			res.Lost, res.ChatsUnanswered, f.spec.Drain)
		return exitFailure
	}
	return exitOK
}

// validateSpec reports what is wrong with the scenario the flags chose.
func validateSpec(s bench.Spec, nargs int) error {
	var errs []error
	switch {
	case nargs > 0:
		errs = append(errs, errors.New("unexpected arguments"))
	case s.Burst > 0 && s.Steady > 0:
		errs = append(errs, errors.New("choose one scenario: --burst N or --steady M"))
	case s.Burst <= 0 && s.Steady <= 0:
		errs = append(errs, errors.New("choose a scenario: --burst N (chats) or --steady M --rate R --latency L"))
	}
	if s.Steady > 0 && (s.Rate <= 0 || s.Duration <= 0) {
		errs = append(errs, errors.New("--steady needs a positive --rate and --duration"))
	}
	if s.Latency < 0 || s.Drain <= 0 {
		errs = append(errs, errors.New("--latency must be zero or more and --drain positive"))
	}
	return errors.Join(errs...)
}

func printBench(w io.Writer, r bench.Result, base *bench.Result) {
	fmt.Fprintf(w, "scenario: %s; model %s, latency %gms, %d model slots, debounce %gms, %d cores\n",
		r.Scenario, r.ModelHabit, r.ModelLatencyMS, r.Concurrency, r.DebounceMS, runtime.NumCPU())
	fmt.Fprintf(w, "messages: %d stored, %d shown to the model, %d lost; chats: %d, %d unanswered; replies %d\n",
		r.Messages, r.Shown, r.Lost, r.ChatsMessaged, r.ChatsUnanswered, r.Replies)
	fmt.Fprintf(w, "model calls %d, ticks %d in %.2fs wall, %.2fs CPU; RSS at start %.1f MB\n",
		r.ModelCalls, r.Ticks, r.WallSeconds, r.CPUSeconds, r.StartRSSMB)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if base != nil {
		fmt.Fprintln(tw, "figure\tnow\tbaseline\tratio")
	}
	for _, f := range bench.Figures {
		v := f.Get(r)
		if base == nil {
			fmt.Fprintf(tw, "%s\t%s\n", f.Label, fmtFigure(v, f.Unit))
			continue
		}
		b := f.Get(*base)
		ratio := "-"
		if b != 0 {
			ratio = fmt.Sprintf("×%.2f", v/b)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Label, fmtFigure(v, f.Unit), fmtFigure(b, f.Unit), ratio)
	}
	_ = tw.Flush()
}

func fmtFigure(v float64, unit string) string {
	switch unit {
	case "%":
		return fmt.Sprintf("%.1f%%", v*100)
	case "":
		return fmt.Sprintf("%.0f", v)
	case "ms":
		if v >= 100 {
			return fmt.Sprintf("%.0f ms", v)
		}
		return fmt.Sprintf("%.3g ms", v)
	case "MB":
		return fmt.Sprintf("%.1f MB", v)
	case "B":
		return fmt.Sprintf("%.0f B", v)
	}
	return fmt.Sprintf("%.1f%s", v, unit)
}
