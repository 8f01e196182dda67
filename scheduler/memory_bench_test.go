package scheduler_test

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/parse"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// memModel answers without keeping requests: with a continue, a sleep,
// or not until release is closed.
type memModel struct {
	answer   string
	release  chan struct{}
	inFlight atomic.Int64
	reached  chan struct{}
	want     int64
}

func (m *memModel) Complete(ctx context.Context, _ planner.Request) (planner.Response, error) {
	if m.release != nil {
		if m.inFlight.Add(1) == m.want {
			close(m.reached)
		}
		select {
		case <-m.release:
		case <-ctx.Done():
			return planner.Response{}, ctx.Err()
		}
	}
	return planner.Response{Content: m.answer, Attempts: 1}, nil
}

func inUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse + ms.StackInuse
}

// BenchmarkChannelMemory reports the memory one channel holds in the
// runtime (scheduler, prompt builder caches; not the database) in three
// states: idle after a wake answered its message, waiting on the model
// with its call in flight, and asleep after the model chose to sleep.
// Run it with -benchtime=1x: each run sets up a thousand channels.
func BenchmarkChannelMemory(b *testing.B) {
	const n = 1000
	tests := []struct {
		name   string
		answer string
		block  bool
	}{
		{"idle", `{"action":"continue"}`, false},
		{"waiting", `{"action":"continue"}`, true},
		{"asleep", `{"action":"sleep","duration":600000}`, false},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			for range b.N {
				perChannel := channelMemory(b, n, tt.answer, tt.block)
				b.ReportMetric(perChannel, "bytes/channel")
			}
		})
	}
}

func channelMemory(b *testing.B, n int, answer string, block bool) float64 {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := sqlite.Open(ctx, b.TempDir()+"/airi.db", zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = st.Close() }()
	src, err := prompts.Load("", zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	reg, err := actions.NewBuiltinRegistry(actions.NewHandlers(actions.HandlerDeps{Store: st, Sender: newSender(), BotName: "Bot"}))
	if err != nil {
		b.Fatal(err)
	}
	m := &memModel{answer: answer}
	conc := 8
	if block {
		m.release, m.reached, m.want = make(chan struct{}), make(chan struct{}), int64(n)
		conc = n
	}
	s, err := scheduler.New(scheduler.Config{NoDebounce: true, NoContinueDelay: true, NoPeriodic: true, Concurrency: conc, BotName: "Bot"}, scheduler.Deps{
		Store: st, Prompter: planner.NewBuilder(src, reg, planner.BuilderOptions{}), Model: m,
		Parser: parse.New(reg), Dispatcher: reg, Logger: zap.NewNop(),
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer func() {
		if m.release != nil {
			select {
			case <-m.release:
			default:
				close(m.release)
			}
		}
		_ = s.Close(context.Background())
	}()
	// A warm-up channel fills the caches every channel shares.
	deliver := func(i int) {
		id := "c" + strconv.Itoa(i)
		err := s.Deliver(ctx, state.Channel{ID: id, Platform: "telegram", Title: "chat " + strconv.Itoa(i)},
			state.Message{PlatformID: strconv.Itoa(i), SenderName: "user", Content: "hello there", Time: time.Now()})
		if err != nil {
			b.Fatal(err)
		}
	}
	if !block {
		deliver(-1)
		if err := waitIdle(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	before := inUse()
	b.ResetTimer()
	for i := range n {
		deliver(i)
	}
	if block {
		select {
		case <-m.reached:
		case <-time.After(time.Minute):
			b.Fatalf("%d of %d calls in flight", m.inFlight.Load(), n)
		}
	} else if err := waitIdle(ctx, s); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	after := inUse()
	return float64(int64(after)-int64(before)) / float64(n)
}

func waitIdle(ctx context.Context, s *scheduler.Scheduler) error {
	wctx, done := context.WithTimeout(ctx, time.Minute)
	defer done()
	if err := s.WaitIdle(wctx); err != nil {
		return fmt.Errorf("wait idle: %w", err)
	}
	return nil
}
