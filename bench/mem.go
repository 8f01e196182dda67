package bench

import (
	"bytes"
	"fmt"
	"os"
	rtmetrics "runtime/metrics"
	"runtime/pprof"
)

// MemPeaks follows the Go runtime's memory during a scenario: the
// largest live heap (as of each garbage collection), the largest
// goroutine stacks and goroutine count, and the resident size at the
// sample where the live heap peaked. With a profile path it keeps the
// heap profile taken when the live heap reached its peak, since the
// profile at the end shows a runtime that has gone idle.
type MemPeaks struct {
	samples []rtmetrics.Sample

	heapLive, stacks, goroutines uint64
	rssAtHeapPeakMB              float64

	profilePath string
	profile     bytes.Buffer
}

const (
	metricHeapLive   = "/gc/heap/live:bytes"
	metricStacks     = "/memory/classes/heap/stacks:bytes"
	metricGoroutines = "/sched/goroutines:goroutines"
)

// NewMemPeaks follows the memory; with a profile path it keeps the heap
// profile of the peak for WriteProfile.
func NewMemPeaks(profilePath string) *MemPeaks {
	return &MemPeaks{
		samples: []rtmetrics.Sample{
			{Name: metricHeapLive}, {Name: metricStacks}, {Name: metricGoroutines},
		},
		profilePath: profilePath,
	}
}

// sample reads the runtime's figures once; only the sampling goroutine
// calls it.
func (p *MemPeaks) sample() {
	rtmetrics.Read(p.samples)
	live, stacks, gs := p.value(0), p.value(1), p.value(2)
	p.stacks = max(p.stacks, stacks)
	p.goroutines = max(p.goroutines, gs)
	if live <= p.heapLive {
		return
	}
	p.heapLive = live
	p.rssAtHeapPeakMB = RSSMB("VmRSS")
	if p.profilePath != "" {
		// The heap profile is as of the latest collection, the one that
		// measured this live heap.
		p.profile.Reset()
		_ = pprof.Lookup("heap").WriteTo(&p.profile, 0)
	}
}

func (p *MemPeaks) value(i int) uint64 {
	if p.samples[i].Value.Kind() != rtmetrics.KindUint64 {
		return 0
	}
	return p.samples[i].Value.Uint64()
}

// WriteProfile writes the heap profile kept at the peak, if one was asked
// for.
func (p *MemPeaks) WriteProfile() error {
	if p.profilePath == "" {
		return nil
	}
	if err := os.WriteFile(p.profilePath, p.profile.Bytes(), 0o644); err != nil {
		return fmt.Errorf("heap profile at the peak: %w", err)
	}
	return nil
}

func mb(b uint64) float64 { return float64(b) / (1 << 20) }
