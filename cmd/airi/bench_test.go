package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/bench"
)

func benchEnv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// TestBenchRunsScenarios runs both scenarios small and checks that every
// message reached the model and every chat was answered, and that a
// baseline gives ratios.
func TestBenchRunsScenarios(t *testing.T) {
	env := benchEnv(map[string]string{"AIRI_DEBOUNCE": "10ms", "AIRI_CONTINUE_DELAY": "10ms"})
	tests := []struct {
		name     string
		args     []string
		channels int
		// callsPerChat, when set, is how many model calls each chat of a
		// burst takes with the model's habit.
		callsPerChat int
	}{
		{"burst", []string{"--burst", "20"}, 20, 1},
		{"burst read-reply", []string{"--burst", "20", "--model", "read-reply"}, 20, 2},
		{"burst read-reply-continue", []string{"--burst", "20", "--model", "read-reply-continue"}, 20, 3},
		{"steady", []string{"--steady", "30", "--rate", "200", "--duration", "200ms", "--latency", "5ms"}, 30, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			a := &app{stdout: &out, stderr: &errOut, getenv: env}
			peak := filepath.Join(t.TempDir(), "peak.prof")
			if code := a.run(context.Background(), append([]string{"bench", "--json", "--memprofile-peak", peak}, tt.args...)); code != exitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, errOut.String())
			}
			var res bench.Result
			if err := json.Unmarshal(out.Bytes(), &res); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, out.String())
			}
			if res.Channels != tt.channels || res.Messages == 0 || res.Lost != 0 || res.ChatsUnanswered != 0 || res.Shown != res.Messages {
				t.Fatalf("result %+v: want every message shown and every chat answered", res)
			}
			if tt.callsPerChat > 0 && (res.ModelCalls != tt.callsPerChat*tt.channels || res.Replies != tt.channels) {
				t.Fatalf("%d model calls and %d replies for %d chats with the %s habit, want %d calls and one reply a chat",
					res.ModelCalls, res.Replies, tt.channels, res.ModelHabit, tt.callsPerChat*tt.channels)
			}
			if res.ModelCalls == 0 || res.Ticks == 0 || res.Replies < res.ChatsMessaged || res.PeakRSSMB <= 0 || res.CPUPerTickMS <= 0 {
				t.Fatalf("result %+v: missing figures", res)
			}
			if res.PeakHeapLiveMB <= 0 || res.PeakStacksMB <= 0 || res.PeakGoroutines <= 0 || res.RSSAtHeapPeakMB <= 0 {
				t.Fatalf("result %+v: missing memory peaks", res)
			}
			// A Go profile is gzip-compressed.
			if prof, err := os.ReadFile(peak); err != nil || !bytes.HasPrefix(prof, []byte{0x1f, 0x8b}) {
				t.Fatalf("heap profile at the peak: %d bytes, %v", len(prof), err)
			}

			base := filepath.Join(t.TempDir(), "base.json")
			if err := os.WriteFile(base, out.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			out.Reset()
			a = &app{stdout: &out, stderr: &errOut, getenv: env}
			if code := a.run(context.Background(), append([]string{"bench", "--baseline", base}, tt.args...)); code != exitOK {
				t.Fatalf("exit %d with a baseline; stderr:\n%s", code, errOut.String())
			}
			if !strings.Contains(out.String(), "ratio") || !strings.Contains(out.String(), "×") {
				t.Fatalf("no ratios printed:\n%s", out.String())
			}
		})
	}
}

func TestBenchUsage(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no scenario", nil, "choose a scenario"},
		{"two scenarios", []string{"--burst", "1", "--steady", "1"}, "choose one scenario"},
		{"no rate", []string{"--steady", "5", "--rate", "0"}, "positive --rate"},
		{"bad baseline", []string{"--burst", "1", "--baseline", bad}, "not the JSON"},
		{"stray argument", []string{"--burst", "1", "extra"}, "unexpected arguments"},
		{"unknown habit", []string{"--burst", "1", "--model", "think"}, "want reply, read-reply or read-reply-continue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errOut bytes.Buffer
			a := &app{stdout: &bytes.Buffer{}, stderr: &errOut, getenv: benchEnv(nil)}
			if code := a.run(context.Background(), append([]string{"bench"}, tt.args...)); code != exitUsage {
				t.Fatalf("exit %d, want %d", code, exitUsage)
			}
			if !strings.Contains(errOut.String(), tt.want) {
				t.Fatalf("stderr %q does not say %q", errOut.String(), tt.want)
			}
		})
	}
}

// BenchmarkBurst runs the burst scenario of `airi bench` (default
// settings, a model that answers at once) and reports the runtime's CPU
// and allocations per tick, everything but the model: the ingest of the
// message, the wake, the prompt, the parse, the send and the records.
// Its ns/op is a whole scenario, set-up and drain included: quote the
// per-tick figures it reports.
// go test -run X -bench Burst -benchtime 3x ./cmd/airi/
func BenchmarkBurst(b *testing.B) {
	const chats = 500
	cfg, err := loadConfig("", benchEnv(nil))
	if err != nil {
		b.Fatal(err)
	}
	var cpu, allocs, ticks, last float64
	for b.Loop() {
		res, err := bench.Run(context.Background(), cfg.runtime(), bench.Spec{Burst: chats, Drain: time.Minute}, b.TempDir(), bench.NewMemPeaks(""), zap.NewNop())
		if err != nil {
			b.Fatal(err)
		}
		if res.Lost != 0 || res.ChatsUnanswered != 0 {
			b.Fatalf("%d messages lost, %d chats unanswered", res.Lost, res.ChatsUnanswered)
		}
		n := float64(res.Ticks)
		cpu += res.CPUPerTickMS * n
		allocs += res.AllocsPerTick * n
		ticks += n
		last += res.LastReplyMS
	}
	b.ReportMetric(cpu/ticks, "cpu-ms/tick")
	b.ReportMetric(allocs/ticks, "allocs/tick")
	b.ReportMetric(last/float64(b.N), "last-reply-ms")
}
