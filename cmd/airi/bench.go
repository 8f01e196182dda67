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
	"runtime/pprof"
	"text/tabwriter"
	"time"
)

// benchFlags are the flags of airi bench.
type benchFlags struct {
	spec         benchSpec
	jsonOut      bool
	baseline     string
	cpuProfile   string
	memProfile   string
	peakProfile  string
	blockProfile string
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
	fs.DurationVar(&f.spec.Drain, "drain", 2*time.Minute, "how long to wait for the last answers once messages stop")
	seed := fs.Uint64("seed", 1, "seed of the steady scenario's choice of channels")
	fs.BoolVar(&f.jsonOut, "json", false, "print the results as one JSON object")
	fs.StringVar(&f.baseline, "baseline", "", "JSON results of an earlier run (--json) to print ratios against")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the scenario to this file")
	fs.StringVar(&f.memProfile, "memprofile", "", "write a heap profile (allocations) at the end to this file")
	fs.StringVar(&f.peakProfile, "memprofile-peak", "", "write a heap profile (memory in use) taken when the live heap peaked to this file")
	fs.StringVar(&f.blockProfile, "blockprofile", "", "write a profile of blocking (channels, locks) to this file")
	if code, ok := a.parseFlags(fs, args); !ok {
		return code
	}
	f.spec.Seed = *seed
	if err := f.spec.validate(fs.NArg()); err != nil {
		fmt.Fprintf(a.stderr, "airi bench: %v\n", err)
		return exitUsage
	}
	var base *benchResult
	if f.baseline != "" {
		b, err := readBaseline(f.baseline)
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

	stop, err := startProfiles(f)
	if err != nil {
		fmt.Fprintf(a.stderr, "airi bench: %v\n", err)
		return exitFailure
	}
	peaks := newMemPeaks(f.peakProfile)
	res, err := runBench(ctx, cfg, f.spec, dir, peaks, log)
	if perr := errors.Join(stop(), peaks.writeProfile()); perr != nil && err == nil {
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
				benchResult
				Ratios map[string]float64 `json:"ratios"`
			}{res, ratios(res, *base)}
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

func (s benchSpec) validate(nargs int) error {
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

func readBaseline(path string) (benchResult, error) {
	var b benchResult
	data, err := os.ReadFile(path)
	if err != nil {
		return b, fmt.Errorf("read baseline: %w", err)
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return b, fmt.Errorf("read baseline %s: not the JSON of `airi bench --json`: %w", path, err)
	}
	return b, nil
}

// benchFigure is one printed figure and how to read it from a result.
type benchFigure struct {
	key, label, unit string
	get              func(benchResult) float64
}

var benchFigures = []benchFigure{
	{"last_reply_ms", "last reply after the first message", "ms", func(r benchResult) float64 { return r.LastReplyMS }},
	{"wake_latency_p50_ms", "wake latency p50 (stored → model call)", "ms", func(r benchResult) float64 { return r.WakeP50MS }},
	{"wake_latency_p99_ms", "wake latency p99", "ms", func(r benchResult) float64 { return r.WakeP99MS }},
	{"model_calls_per_second", "model calls a second", "/s", func(r benchResult) float64 { return r.ModelCallsPerS }},
	{"ticks_per_second", "ticks a second", "/s", func(r benchResult) float64 { return r.TicksPerS }},
	{"model_slot_utilisation", "model slots busy while work waits", "%", func(r benchResult) float64 { return r.SlotUtilisation }},
	{"cpu_per_tick_ms", "runtime CPU per tick", "ms", func(r benchResult) float64 { return r.CPUPerTickMS }},
	{"statements_per_tick", "store statements per tick", "/tick", func(r benchResult) float64 { return r.StatementsPerTick }},
	{"write_transactions_per_tick", "store write transactions per tick", "/tick", func(r benchResult) float64 { return r.WritesPerTick }},
	{"read_transactions_per_tick", "store read transactions per tick", "/tick", func(r benchResult) float64 { return r.ReadsPerTick }},
	{"allocs_per_tick", "allocations per tick", "", func(r benchResult) float64 { return r.AllocsPerTick }},
	{"alloc_bytes_per_tick", "bytes allocated per tick", "B", func(r benchResult) float64 { return r.BytesPerTick }},
	{"peak_rss_mb", "peak RSS", "MB", func(r benchResult) float64 { return r.PeakRSSMB }},
	{"peak_heap_live_mb", "peak live heap", "MB", func(r benchResult) float64 { return r.PeakHeapLiveMB }},
	{"peak_stacks_mb", "peak goroutine stacks", "MB", func(r benchResult) float64 { return r.PeakStacksMB }},
	{"peak_goroutines", "peak goroutines", "", func(r benchResult) float64 { return float64(r.PeakGoroutines) }},
}

// ratios divides each figure by the baseline's (new / old).
func ratios(r, base benchResult) map[string]float64 {
	out := map[string]float64{}
	for _, f := range benchFigures {
		if b := f.get(base); b != 0 {
			out[f.key] = f.get(r) / b
		}
	}
	return out
}

func printBench(w io.Writer, r benchResult, base *benchResult) {
	fmt.Fprintf(w, "scenario: %s; model latency %gms, %d model slots, debounce %gms, %d cores\n",
		r.Scenario, r.ModelLatencyMS, r.Concurrency, r.DebounceMS, runtime.NumCPU())
	fmt.Fprintf(w, "messages: %d stored, %d shown to the model, %d lost; chats: %d, %d unanswered; replies %d\n",
		r.Messages, r.Shown, r.Lost, r.ChatsMessaged, r.ChatsUnanswered, r.Replies)
	fmt.Fprintf(w, "model calls %d, ticks %d in %.2fs wall, %.2fs CPU; RSS at start %.1f MB\n",
		r.ModelCalls, r.Ticks, r.WallSeconds, r.CPUSeconds, r.StartRSSMB)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if base != nil {
		fmt.Fprintln(tw, "figure\tnow\tbaseline\tratio")
	}
	for _, f := range benchFigures {
		v := f.get(r)
		if base == nil {
			fmt.Fprintf(tw, "%s\t%s\n", f.label, fmtFigure(v, f.unit))
			continue
		}
		b := f.get(*base)
		ratio := "-"
		if b != 0 {
			ratio = fmt.Sprintf("×%.2f", v/b)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.label, fmtFigure(v, f.unit), fmtFigure(b, f.unit), ratio)
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

// startProfiles starts the profiles asked for; the function it returns
// stops them and writes the files.
func startProfiles(f benchFlags) (func() error, error) {
	var cpuFile *os.File
	if f.cpuProfile != "" {
		var err error
		cpuFile, err = os.Create(f.cpuProfile)
		if err != nil {
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
		if err := pprof.StartCPUProfile(cpuFile); err != nil {
			_ = cpuFile.Close()
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
	}
	if f.blockProfile != "" {
		runtime.SetBlockProfileRate(int(time.Microsecond))
	}
	return func() error {
		var errs []error
		if cpuFile != nil {
			pprof.StopCPUProfile()
			errs = append(errs, cpuFile.Close())
		}
		if f.memProfile != "" {
			errs = append(errs, writeProfile("allocs", f.memProfile))
		}
		if f.blockProfile != "" {
			errs = append(errs, writeProfile("block", f.blockProfile))
			runtime.SetBlockProfileRate(0)
		}
		return errors.Join(errs...)
	}, nil
}

func writeProfile(name, path string) error {
	out, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("%s profile: %w", name, err)
	}
	if err := pprof.Lookup(name).WriteTo(out, 0); err != nil {
		_ = out.Close()
		return fmt.Errorf("%s profile: %w", name, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("%s profile: %w", name, err)
	}
	return nil
}
