package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

// ReadBaseline reads the JSON results of an earlier run (`airi bench
// --json`).
func ReadBaseline(path string) (Result, error) {
	var b Result
	data, err := os.ReadFile(path)
	if err != nil {
		return b, fmt.Errorf("read baseline: %w", err)
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return b, fmt.Errorf("read baseline %s: not the JSON of `airi bench --json`: %w", path, err)
	}
	return b, nil
}

// Figure is one figure of a result: its JSON key, what it measures, its
// unit, and how to read it.
type Figure struct {
	Key, Label, Unit string
	Get              func(Result) float64
}

// Figures are the figures a run reports, in the order they are printed.
var Figures = []Figure{
	{"last_reply_ms", "last reply after the first message", "ms", func(r Result) float64 { return r.LastReplyMS }},
	{"wake_latency_p50_ms", "wake latency p50 (stored → model call)", "ms", func(r Result) float64 { return r.WakeP50MS }},
	{"wake_latency_p99_ms", "wake latency p99", "ms", func(r Result) float64 { return r.WakeP99MS }},
	{"model_calls_per_second", "model calls a second", "/s", func(r Result) float64 { return r.ModelCallsPerS }},
	{"ticks_per_second", "ticks a second", "/s", func(r Result) float64 { return r.TicksPerS }},
	{"model_slot_utilisation", "model slots busy while work waits", "%", func(r Result) float64 { return r.SlotUtilisation }},
	{"cpu_per_tick_ms", "runtime CPU per tick", "ms", func(r Result) float64 { return r.CPUPerTickMS }},
	{"statements_per_tick", "store statements per tick", "/tick", func(r Result) float64 { return r.StatementsPerTick }},
	{"write_transactions_per_tick", "store write transactions per tick", "/tick", func(r Result) float64 { return r.WritesPerTick }},
	{"read_transactions_per_tick", "store read transactions per tick", "/tick", func(r Result) float64 { return r.ReadsPerTick }},
	{"allocs_per_tick", "allocations per tick", "", func(r Result) float64 { return r.AllocsPerTick }},
	{"alloc_bytes_per_tick", "bytes allocated per tick", "B", func(r Result) float64 { return r.BytesPerTick }},
	{"peak_rss_mb", "peak RSS", "MB", func(r Result) float64 { return r.PeakRSSMB }},
	{"peak_heap_live_mb", "peak live heap", "MB", func(r Result) float64 { return r.PeakHeapLiveMB }},
	{"peak_stacks_mb", "peak goroutine stacks", "MB", func(r Result) float64 { return r.PeakStacksMB }},
	{"peak_goroutines", "peak goroutines", "", func(r Result) float64 { return float64(r.PeakGoroutines) }},
}

// Ratios divides each figure by the baseline's (new / old).
func Ratios(r, base Result) map[string]float64 {
	out := map[string]float64{}
	for _, f := range Figures {
		if b := f.Get(base); b != 0 {
			out[f.Key] = f.Get(r) / b
		}
	}
	return out
}

// Profiles are the files of the profiles to write; an empty name writes none.
type Profiles struct {
	// CPU is the CPU profile of the scenario; Mem the heap profile
	// (allocations) at the end; Block the profile of blocking (channels,
	// locks).
	CPU, Mem, Block string
}

// StartProfiles starts the profiles asked for; the function it returns
// stops them and writes the files.
func StartProfiles(f Profiles) (func() error, error) {
	var cpuFile *os.File
	if f.CPU != "" {
		var err error
		cpuFile, err = os.Create(f.CPU)
		if err != nil {
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
		if err := pprof.StartCPUProfile(cpuFile); err != nil {
			_ = cpuFile.Close()
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
	}
	if f.Block != "" {
		runtime.SetBlockProfileRate(int(time.Microsecond))
	}
	return func() error {
		var errs []error
		if cpuFile != nil {
			pprof.StopCPUProfile()
			errs = append(errs, cpuFile.Close())
		}
		if f.Mem != "" {
			errs = append(errs, writeProfile("allocs", f.Mem))
		}
		if f.Block != "" {
			errs = append(errs, writeProfile("block", f.Block))
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
