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

// memNow returns, after collecting garbage, the heap in use with the
// goroutine stacks, and the live heap objects alone.
func memNow() (inUse, live uint64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse + ms.StackInuse, ms.HeapAlloc
}

// BenchmarkChannelMemory reports the memory one channel holds in the
// runtime (scheduler, prompt builder caches; not the database) in three
// states: idle after a wake answered its message, waiting on the model
// with its call in flight, and asleep after the model chose to sleep; and
// idle again for channels with a full history window (20 messages) before
// that message. bytes/channel is the heap in use and goroutine stacks
// (what the process holds, fragmentation included), live-bytes/channel
// the heap objects alone. Run it with -benchtime=1x: each run sets up a
// thousand channels.
func BenchmarkChannelMemory(b *testing.B) {
	const n = 1000
	tests := []struct {
		name    string
		answer  string
		block   bool
		history int
	}{
		{"idle", `{"action":"continue"}`, false, 0},
		{"waiting", `{"action":"continue"}`, true, 0},
		{"asleep", `{"action":"sleep","duration":600000}`, false, 0},
		{"idle-history", `{"action":"continue"}`, false, 20},
		// A read asks for another call: the wake waits out its continue
		// delay between the two.
		{"between-calls", `{"action":"read_unread_messages"}`, false, 0},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			for range b.N {
				inUse, live := channelMemory(b, n, tt.answer, tt.block, tt.history)
				b.ReportMetric(inUse, "bytes/channel")
				b.ReportMetric(live, "live-bytes/channel")
			}
		})
	}
}

func channelMemory(b *testing.B, n int, answer string, block bool, history int) (inUse, live float64) {
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
	cfg := scheduler.Config{NoDebounce: true, NoContinueDelay: true, NoPeriodic: true, Concurrency: conc, BotName: "Bot"}
	// Reads wait between their calls until the end of the benchmark: a
	// tick recorded for every channel means every wake waits.
	reads := answer == `{"action":"read_unread_messages"}`
	var ticks atomic.Int64
	if reads {
		cfg.NoContinueDelay, cfg.ContinueDelay = false, 10*time.Minute
	}
	s, err := scheduler.New(cfg, scheduler.Deps{
		Store: st, Prompter: planner.NewBuilder(src, reg, planner.BuilderOptions{}), Model: m,
		Parser: parse.New(reg), Dispatcher: reg, Logger: zap.NewNop(),
		OnTick: func(state.Tick) { ticks.Add(1) },
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
	// The history is in the store (not counted) before the channels wake.
	for i := range n {
		if err := addHistory(ctx, st, "c"+strconv.Itoa(i), "chat "+strconv.Itoa(i), history); err != nil {
			b.Fatal(err)
		}
	}
	if !block && !reads {
		deliver(-1)
		if err := waitIdle(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	inUse0, live0 := memNow()
	b.ResetTimer()
	for i := range n {
		deliver(i)
	}
	switch {
	case block:
		select {
		case <-m.reached:
		case <-time.After(time.Minute):
			b.Fatalf("%d of %d calls in flight", m.inFlight.Load(), n)
		}
	case reads:
		for deadline := time.Now().Add(time.Minute); ticks.Load() < int64(n); {
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d first calls recorded", ticks.Load(), n)
			}
			time.Sleep(time.Millisecond)
		}
	default:
		if err := waitIdle(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	inUse1, live1 := memNow()
	return float64(int64(inUse1)-int64(inUse0)) / float64(n), float64(int64(live1)-int64(live0)) / float64(n)
}

// addHistory stores n earlier messages of a channel, read.
func addHistory(ctx context.Context, st *sqlite.Store, id, title string, n int) error {
	if n == 0 {
		return nil
	}
	if err := st.UpsertChannel(ctx, state.Channel{ID: id, Platform: "telegram", Title: title}); err != nil {
		return fmt.Errorf("add channel: %w", err)
	}
	ids := make([]int64, 0, n)
	for j := range n {
		m, _, err := st.Ingest(ctx, state.Message{ChannelID: id, PlatformID: "h" + strconv.Itoa(j), SenderName: "user",
			Content: "an earlier message of this chat, number " + strconv.Itoa(j), Time: time.Now().Add(-time.Hour)})
		if err != nil {
			return fmt.Errorf("add history: %w", err)
		}
		ids = append(ids, m.ID)
	}
	if err := st.MarkRead(ctx, ids); err != nil {
		return fmt.Errorf("mark history read: %w", err)
	}
	return nil
}

func waitIdle(ctx context.Context, s *scheduler.Scheduler) error {
	wctx, done := context.WithTimeout(ctx, time.Minute)
	defer done()
	if err := s.WaitIdle(wctx); err != nil {
		return fmt.Errorf("wait idle: %w", err)
	}
	return nil
}
