// Package bench is the load harness of `airi bench`: scenarios of many
// chats against the bot built with runtime.New on a fresh SQLite store, a
// built-in model that answers at once or after a set latency, and what
// they measure (reply and wake latency, model slot use, CPU, allocations
// and store work per tick, peak memory).
package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sync/errgroup"

	"github.com/airi-go/airi/adapters/telegram"
	"github.com/airi-go/airi/internal/rusage"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// Spec is one scenario.
type Spec struct {
	// Burst is the number of private chats that each send one message at
	// once; zero selects the steady scenario.
	Burst int
	// Steady is the number of channels that messages arrive in at Rate
	// messages a second in all, for Duration.
	Steady   int
	Rate     float64
	Duration time.Duration
	// Latency is how long the model takes to answer.
	Latency time.Duration
	// Habit is how the built-in model answers a wake; empty is HabitReply.
	Habit Habit
	// Drain bounds the wait for the last answers once injection ends.
	Drain time.Duration
	// Seed makes the steady scenario's choice of channels repeatable.
	Seed uint64
}

// Name describes the scenario.
func (s Spec) Name() string {
	if s.Burst > 0 {
		return fmt.Sprintf("burst %d", s.Burst)
	}
	return fmt.Sprintf("steady %d channels, %g msg/s, %s", s.Steady, s.Rate, s.Duration)
}

// Result is what one run of a scenario measured.
type Result struct {
	Scenario        string  `json:"scenario"`
	Channels        int     `json:"channels"`
	Messages        int     `json:"messages"`
	Shown           int     `json:"messages_shown"`
	Lost            int     `json:"messages_lost"`
	ChatsMessaged   int     `json:"chats_messaged"`
	ChatsUnanswered int     `json:"chats_unanswered"`
	Replies         int     `json:"replies"`
	Concurrency     int     `json:"model_concurrency"`
	ModelLatencyMS  float64 `json:"model_latency_ms"`
	ModelHabit      Habit   `json:"model"`
	DebounceMS      float64 `json:"debounce_ms"`
	LastReplyMS     float64 `json:"last_reply_ms"`
	WakeP50MS       float64 `json:"wake_latency_p50_ms"`
	WakeP99MS       float64 `json:"wake_latency_p99_ms"`
	ModelCalls      int     `json:"model_calls"`
	Ticks           int     `json:"ticks"`
	ModelCallsPerS  float64 `json:"model_calls_per_second"`
	TicksPerS       float64 `json:"ticks_per_second"`
	SlotUtilisation float64 `json:"model_slot_utilisation"`
	AllocsPerTick   float64 `json:"allocs_per_tick"`
	BytesPerTick    float64 `json:"alloc_bytes_per_tick"`
	CPUPerTickMS    float64 `json:"cpu_per_tick_ms"`
	// Store work per tick, ingest included (SQLite only).
	StatementsPerTick float64 `json:"statements_per_tick,omitempty"`
	WritesPerTick     float64 `json:"write_transactions_per_tick,omitempty"`
	ReadsPerTick      float64 `json:"read_transactions_per_tick,omitempty"`
	CPUSeconds        float64 `json:"cpu_seconds"`
	WallSeconds       float64 `json:"wall_seconds"`
	StartRSSMB        float64 `json:"start_rss_mb"`
	PeakRSSMB         float64 `json:"peak_rss_mb"`
	// PeakHeapLiveMB is the largest live heap a garbage collection found;
	// RSSAtHeapPeakMB the resident size when it was found.
	PeakHeapLiveMB  float64 `json:"peak_heap_live_mb"`
	RSSAtHeapPeakMB float64 `json:"rss_at_heap_peak_mb"`
	PeakStacksMB    float64 `json:"peak_stacks_mb"`
	PeakGoroutines  int     `json:"peak_goroutines"`
}

// pending is a message injected and not yet shown to the model.
type pending struct {
	mark   string
	stored time.Time
}

// recorder follows every message from the moment it is stored to
// the model call that shows it, and every reply.
type recorder struct {
	debounce    time.Duration
	concurrency int
	ticks       atomic.Int64

	mu        sync.Mutex
	pending   map[string][]pending
	inflight  map[string]int
	nInflight int
	calls     int
	shown     int
	latencies []time.Duration
	lastMsg   map[string]time.Time
	// lastShown is when the latest call that showed a message of the
	// channel started; a reply after it answers the channel.
	lastShown map[string]time.Time
	lastReply map[string]time.Time
	replies   int
	latest    time.Time
	// busy and offered sum, over samples, the model slots in use and the
	// slots that the work waiting could have used.
	busy, offered int64
	allDone       chan struct{}
	wantReplies   int
}

func newRecorder(debounce time.Duration, concurrency int) *recorder {
	return &recorder{
		debounce: debounce, concurrency: concurrency,
		pending: map[string][]pending{}, inflight: map[string]int{},
		lastMsg: map[string]time.Time{}, lastShown: map[string]time.Time{}, lastReply: map[string]time.Time{},
		allDone: make(chan struct{}),
	}
}

func (r *recorder) stored(channel, mark string, at time.Time) {
	r.mu.Lock()
	r.pending[channel] = append(r.pending[channel], pending{mark: mark, stored: at})
	r.lastMsg[channel] = at
	r.mu.Unlock()
}

// callStarted marks the messages the request shows as picked up.
func (r *recorder) callStarted(req planner.Request) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	r.nInflight++
	r.inflight[req.ChannelID]++
	waiting := r.pending[req.ChannelID]
	kept := waiting[:0]
	for _, m := range waiting {
		if requestShows(req, m.mark) {
			r.shown++
			r.lastShown[req.ChannelID] = now
			r.latencies = append(r.latencies, now.Sub(m.stored))
			continue
		}
		kept = append(kept, m)
	}
	if len(kept) == 0 {
		delete(r.pending, req.ChannelID)
	} else {
		r.pending[req.ChannelID] = kept
	}
}

func requestShows(req planner.Request, mark string) bool {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if strings.Contains(req.Messages[i].Content, mark) {
			return true
		}
	}
	return false
}

func (r *recorder) callEnded(channel string) {
	r.mu.Lock()
	r.nInflight--
	if r.inflight[channel]--; r.inflight[channel] <= 0 {
		delete(r.inflight, channel)
	}
	r.mu.Unlock()
}

func (r *recorder) replied(channel string) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	_, before := r.lastReply[channel]
	r.lastReply[channel] = now
	r.replies++
	r.latest = now
	if !before && r.wantReplies > 0 && len(r.lastReply) == r.wantReplies {
		close(r.allDone)
	}
}

// sample adds the model slots in use now and those the work waiting
// could use: channels whose debounce is over and whose messages no call
// has shown yet.
//
// Only as many ready channels as there are free slots count, so the scan
// stops there: past a burst's debounce a sample costs about the model
// slots, not the channels waiting (its CPU counts as the runtime's).
func (r *recorder) sample(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	free := r.concurrency - r.nInflight
	ready := 0
	for ch, msgs := range r.pending {
		if ready >= free {
			break
		}
		if r.inflight[ch] == 0 && now.Sub(msgs[0].stored) >= r.debounce {
			ready++
		}
	}
	r.busy += int64(r.nInflight)
	r.offered += int64(r.nInflight + ready) // ready is at most the free slots
}

// settled reports that every message was shown and no call is running.
func (r *recorder) settled() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending) == 0 && r.nInflight == 0
}

// sender is the adapter replies go to.
type sender struct {
	rec *recorder
	n   atomic.Int64
}

func (s *sender) Name() string { return "telegram" }

func (s *sender) Send(_ context.Context, out state.Outgoing) (string, error) {
	s.rec.replied(out.ChannelID)
	return "bench-" + strconv.FormatInt(s.n.Add(1), 10), nil
}

// shutdownGrace bounds how long the bot's in-flight ticks may take to stop.
const shutdownGrace = 10 * time.Second

// burstPoll is how many messages of a burst one poll of the platform
// brings (Telegram's getUpdates limit); the chats of one poll are
// delivered at once as the Telegram adapter delivers them.
const burstPoll = 100

// Run runs one scenario of the bot configured by cfg on a fresh SQLite
// database in dir; peaks follows the process's memory while it runs.
func Run(ctx context.Context, cfg runtime.Config, spec Spec, dir string, peaks *MemPeaks, log *zap.Logger) (Result, error) {
	res := Result{Scenario: spec.Name(), Concurrency: cfg.Concurrency,
		ModelLatencyMS: ms(spec.Latency), ModelHabit: spec.Habit.orDefault(), DebounceMS: ms(cfg.Debounce)}
	// The scenario's database starts empty and lives for minutes: no
	// retention sweep competes with the scenario.
	cfg.TickRetention, cfg.MessageRetention = 0, 0
	rec := newRecorder(cfg.Debounce, cfg.Concurrency)
	snd := &sender{rec: rec}
	store, err := sqlite.Open(ctx, filepath.Join(dir, "airi.db"), log)
	if err != nil {
		return res, fmt.Errorf("open database: %w", err)
	}
	rt, err := runtime.New(cfg, runtime.Deps{
		Model: newModel(spec.Latency, spec.Habit, rec), Store: store, Logger: log,
		Adapters: []runtime.Adapter{{Sender: snd}},
		OnTick:   func(state.Tick) { rec.ticks.Add(1) },
	})
	if err != nil {
		return res, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer func() {
		closeCtx, done := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
		defer done()
		cancel()
		_ = rt.Close(closeCtx)
	}()
	if err := rt.Start(runCtx); err != nil {
		return res, fmt.Errorf("start scheduler: %w", err)
	}
	in := rt.Inbox("telegram")

	channels := spec.Burst
	if channels == 0 {
		channels = spec.Steady
		// Every channel is known to the store before the first message,
		// as in a bot that has been in them for a while.
		for i := range channels {
			ch := channel(i)
			if err := rt.Store().UpsertChannel(ctx, ch); err != nil {
				return res, fmt.Errorf("register channel %s: %w", ch.ID, err)
			}
		}
	}
	res.Channels = channels

	work0 := store.Work()
	goruntime.GC()
	res.StartRSSMB = RSSMB("VmRSS")
	resetPeakRSS()
	var ms0 goruntime.MemStats
	goruntime.ReadMemStats(&ms0)
	cpu0 := rusage.CPU()
	start := time.Now()

	samplerDone := make(chan struct{})
	stopSampler := make(chan struct{})
	go func() {
		defer close(samplerDone)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stopSampler:
				return
			case now := <-t.C:
				rec.sample(now)
				peaks.sample()
			}
		}
	}()
	defer func() {
		select {
		case <-stopSampler:
		default:
			close(stopSampler)
		}
		<-samplerDone
	}()

	seq := 0
	deliverAs := func(i, seq int) error {
		ch := channel(i)
		mark := fmt.Sprintf("message %d of", seq)
		msg := state.Message{PlatformID: strconv.Itoa(seq), SenderID: "u" + strconv.Itoa(i), SenderName: "User " + strconv.Itoa(i),
			Content: "hello, this is " + mark + " the bench", Time: time.Now()}
		// Noted as waiting before it is delivered: the model may be called
		// for it before Deliver returns, and a call that shows a message not
		// yet noted would leave it counted as never shown.
		rec.stored(ch.ID, mark, time.Now())
		if err := in.Deliver(ctx, ch, msg); err != nil {
			return fmt.Errorf("deliver message %d: %w", seq, err)
		}
		return nil
	}
	deliver := func(i int) error {
		seq++
		return deliverAs(i, seq)
	}

	if spec.Burst > 0 {
		rec.mu.Lock()
		rec.wantReplies = spec.Burst
		rec.mu.Unlock()
		// The burst comes in as a polling adapter receives it (Telegram's
		// getUpdates): answers of up to burstPoll messages, the chats of
		// one answer delivered at the same time.
		for first := 0; first < spec.Burst; first += burstPoll {
			var g errgroup.Group
			g.SetLimit(telegram.MaxChatDeliveries)
			for i := first; i < min(first+burstPoll, spec.Burst); i++ {
				seq++
				n := seq
				g.Go(func() error { return deliverAs(i, n) })
			}
			if err := g.Wait(); err != nil {
				return res, err
			}
		}
		select {
		case <-rec.allDone:
		case <-time.After(spec.Drain):
		case <-ctx.Done():
			return res, ctx.Err()
		}
	} else {
		rng := rand.New(rand.NewPCG(spec.Seed, spec.Seed^0x9e3779b97f4a7c15))
		t := time.NewTicker(5 * time.Millisecond)
		end := start.Add(spec.Duration)
		sent := 0
	inject:
		for {
			select {
			case <-ctx.Done():
				t.Stop()
				return res, ctx.Err()
			case now := <-t.C:
				if !now.Before(end) {
					break inject
				}
				due := int(spec.Rate * now.Sub(start).Seconds())
				for ; sent < due; sent++ {
					if err := deliver(rng.IntN(channels)); err != nil {
						t.Stop()
						return res, err
					}
				}
			}
		}
		t.Stop()
		deadline := time.Now().Add(spec.Drain)
		for !rec.settled() && time.Now().Before(deadline) {
			select {
			case <-ctx.Done():
				return res, ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	close(stopSampler)
	<-samplerDone
	// The last replies' ticks are recorded once the scheduler is idle.
	idleCtx, idleDone := context.WithTimeout(ctx, 10*time.Second)
	err = rt.Scheduler().WaitIdle(idleCtx)
	idleDone()
	if err != nil && ctx.Err() != nil {
		return res, ctx.Err()
	}
	wall := time.Since(start)
	cpu := rusage.CPU() - cpu0
	var ms1 goruntime.MemStats
	goruntime.ReadMemStats(&ms1)
	res.PeakRSSMB = peakRSSMB()
	res.PeakHeapLiveMB, res.RSSAtHeapPeakMB = mb(peaks.heapLive), peaks.rssAtHeapPeakMB
	res.PeakStacksMB, res.PeakGoroutines = mb(peaks.stacks), int(peaks.goroutines)

	rec.mu.Lock()
	defer rec.mu.Unlock()
	res.Messages = seq
	res.Shown = rec.shown
	res.Lost = seq - rec.shown
	res.ChatsMessaged = len(rec.lastMsg)
	for ch, at := range rec.lastShown {
		if r, ok := rec.lastReply[ch]; !ok || r.Before(at) {
			res.ChatsUnanswered++
		}
	}
	res.Replies = rec.replies
	if !rec.latest.IsZero() {
		res.LastReplyMS = ms(rec.latest.Sub(start))
	}
	res.WakeP50MS, res.WakeP99MS = Percentile(rec.latencies, 0.50), Percentile(rec.latencies, 0.99)
	res.ModelCalls = rec.calls
	res.Ticks = int(rec.ticks.Load())
	res.WallSeconds = wall.Seconds()
	res.CPUSeconds = cpu.Seconds()
	res.ModelCallsPerS = float64(res.ModelCalls) / wall.Seconds()
	res.TicksPerS = float64(res.Ticks) / wall.Seconds()
	if rec.offered > 0 {
		res.SlotUtilisation = float64(rec.busy) / float64(rec.offered)
	}
	if res.Ticks > 0 {
		n := float64(res.Ticks)
		res.AllocsPerTick = float64(ms1.Mallocs-ms0.Mallocs) / n
		res.BytesPerTick = float64(ms1.TotalAlloc-ms0.TotalAlloc) / n
		res.CPUPerTickMS = ms(cpu) / n
		w := store.Work()
		res.StatementsPerTick = float64(w.Statements-work0.Statements) / n
		res.WritesPerTick = float64(w.Writes-work0.Writes) / n
		res.ReadsPerTick = float64(w.Reads-work0.Reads) / n
	}
	return res, nil
}

// channel is the i-th private chat of a scenario.
func channel(i int) state.Channel {
	id := strconv.Itoa(100000 + i)
	return state.Channel{ID: id, Platform: "telegram", Title: "User " + strconv.Itoa(i)}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Percentile returns the q-quantile of ds in milliseconds (0 for none).
func Percentile(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s)-1) + 0.5)
	return ms(s[i])
}

// RSSMB reads a memory figure of this process from /proc (0 where there
// is none).
func RSSMB(field string) float64 { return ProcStatusMB("self", field) }

// ProcStatusMB reads a kB figure (VmRSS, VmHWM, RssAnon...) of process
// pid ("self" for this one) from /proc, in MB; 0 where there is none.
func ProcStatusMB(pid, field string) float64 {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		v, ok := strings.CutPrefix(line, field+":")
		if !ok {
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
		if err != nil {
			return 0
		}
		return kb / 1024
	}
	return 0
}

// resetPeakRSS starts the peak resident size over from the current one
// (Linux), so that the scenario's peak is not the setup's.
func resetPeakRSS() {
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSSMB is the peak resident size since resetPeakRSS, or of the whole
// process where the kernel cannot reset it.
func peakRSSMB() float64 {
	if v := RSSMB("VmHWM"); v > 0 {
		return v
	}
	return rusage.MaxRSSMB()
}
