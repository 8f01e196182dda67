package scheduler_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/parse"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

func benchScheduler(b *testing.B, answer string, opts ...func(*scheduler.Config)) (*scheduler.Scheduler, *sqlite.Store) {
	b.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, b.TempDir()+"/airi.db", zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	src, err := prompts.Load("", zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	reg, err := actions.NewBuiltinRegistry(actions.NewHandlers(actions.HandlerDeps{Store: st, Sender: newSender(), BotName: "Bot"}))
	if err != nil {
		b.Fatal(err)
	}
	m := newModel(func(context.Context, int, planner.Request) (string, error) { return answer, nil })
	m.called = make(chan int, 1<<20)
	cfg := scheduler.Config{NoContinueDelay: true, NoPeriodic: true, MaxIterations: 1, BotName: "Bot"}
	for _, o := range opts {
		o(&cfg)
	}
	s, err := scheduler.New(cfg, scheduler.Deps{
		Store: st, Prompter: planner.NewBuilder(src, reg, planner.BuilderOptions{}), Model: m,
		Parser: parse.New(reg), Dispatcher: reg, Logger: zap.NewNop(),
	})
	if err != nil {
		b.Fatal(err)
	}
	return s, st
}

// BenchmarkTick measures the runtime's own work for one tick with a full
// history window: deliver a message, gather the state, build the prompt,
// parse the answer, dispatch a send, record the action and the tick. The
// model answers at once.
func BenchmarkTick(b *testing.B) {
	s, _ := benchScheduler(b, `{"action":"send_message","channelId":"c1","content":"noted, thanks"}`)
	ctx := context.Background()
	ch := state.Channel{ID: "c1", Platform: "telegram", Group: true, Title: "bench"}
	deliver := func(i int) {
		err := s.Deliver(ctx, ch, state.Message{ChannelID: "c1", PlatformID: fmt.Sprint(i), SenderName: fmt.Sprintf("user%d", i%5),
			Content: "a message of ordinary length, about as long as people write in a group chat", Time: time.Now()})
		if err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < 30; i++ {
		deliver(-i - 1)
		s.Wake(ctx, "c1", "message")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		deliver(i)
		if rep := s.Wake(ctx, "c1", "message"); rep.Iterations != 1 {
			b.Fatalf("wake ran %d ticks", rep.Iterations)
		}
	}
}

// BenchmarkIdleChannel reports the memory one idle channel's loop holds.
func BenchmarkIdleChannel(b *testing.B) {
	s, st := benchScheduler(b, `{"action":"continue"}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := s.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = s.Close(context.Background()) }()
	const n = 1000
	for i := 0; i < n; i++ {
		if err := st.UpsertChannel(ctx, state.Channel{ID: fmt.Sprint("ch", i), Platform: "console"}); err != nil {
			b.Fatal(err)
		}
	}
	var before, after runtime.MemStats
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		for j := 0; j < n; j++ {
			s.Wake(ctx, fmt.Sprintf("ch%d-%d", i, j), "periodic")
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
	}
	perChannel := float64(after.HeapInuse+after.StackInuse-before.HeapInuse-before.StackInuse) / n
	b.ReportMetric(perChannel, "bytes/channel")
}

// BenchmarkDeliverSkipped measures delivering a group message that wakes
// nothing under the attention policy: store it, decide, record the decision.
func BenchmarkDeliverSkipped(b *testing.B) {
	s, _ := benchScheduler(b, `{"action":"continue"}`, func(c *scheduler.Config) {
		set := attention.Defaults()
		set.AmbientEvery = 1 << 30 // never an ambient wake
		set.SenderRate = attention.Rate{}
		c.Attention = &attention.Policy{Default: set}
	})
	ctx := context.Background()
	ch := state.Channel{ID: "c1", Platform: "telegram", Group: true, Title: "bench"}
	b.ResetTimer()
	for i := range b.N {
		err := s.Deliver(ctx, ch, state.Message{ChannelID: "c1", PlatformID: fmt.Sprint(i), SenderID: fmt.Sprint(i % 50),
			SenderName: fmt.Sprintf("user%d", i%50), Content: "talk among others, not addressed to the bot", Time: time.Now()})
		if err != nil {
			b.Fatal(err)
		}
	}
}
