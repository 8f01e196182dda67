// Package scheduler runs one loop per channel: it wakes a channel on new
// messages (after a debounce), on the periodic tick and when a sleep or a
// re-arm falls due, runs at most a bounded number of ticks per wake, and
// owns every goroutine that does so.
package scheduler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/state"
)

// Unpause wakes a channel whose pause an operator ended, if it has unread
// messages.
func (s *Scheduler) Unpause(channelID string) {
	if s.allowed(channelID) {
		s.loopFor(channelID).signal(TriggerUnread)
	}
}

// Scheduler owns the channel loops.
type Scheduler struct {
	cfg  Config
	deps Deps
	log  *zap.Logger
	sem  chan struct{}
	// wakes bounds the loops whose goroutine runs.
	wakes *gate
	// model follows whether model calls succeed, for logs and readiness.
	model *modelHealth

	titles titleCache
	unread unreadSnapshot

	mu      sync.Mutex
	loops   map[string]*loop
	wakeSeq int64
	changed chan struct{} // closed and replaced whenever a loop's state changes
	started bool
	closed  bool
	ctx     context.Context
	cancel  context.CancelFunc
	life    lifetime
}

// lifetime counts the scheduler's goroutines: the periodic tick and the
// loops with a wake due now or running (or waiting for their turn to). None starts before Start or
// after Close.
type lifetime struct {
	mu      sync.Mutex
	ctx     context.Context
	running bool
	wg      sync.WaitGroup
}

func (lt *lifetime) start(ctx context.Context) {
	lt.mu.Lock()
	lt.ctx, lt.running = ctx, true
	lt.mu.Unlock()
}

func (lt *lifetime) stop() {
	lt.mu.Lock()
	lt.running = false
	lt.mu.Unlock()
}

// add counts a goroutine about to start and returns its context; false
// means the scheduler is not running.
func (lt *lifetime) add() (context.Context, bool) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if !lt.running {
		return nil, false
	}
	lt.wg.Add(1)
	return lt.ctx, true
}

func (lt *lifetime) done() { lt.wg.Done() }

// New returns a scheduler; Start runs its loops.
func New(cfg Config, deps Deps) (*Scheduler, error) {
	var errs []error
	if err := cfg.validate(); err != nil {
		errs = append(errs, err)
	}
	cfg.defaults()
	if deps.Store == nil {
		errs = append(errs, errors.New("scheduler: no store"))
	}
	if deps.Prompter == nil {
		errs = append(errs, errors.New("scheduler: no prompter"))
	}
	if deps.Model == nil {
		errs = append(errs, errors.New("scheduler: no model"))
	}
	if deps.Parser == nil {
		errs = append(errs, errors.New("scheduler: no parser"))
	}
	if deps.Dispatcher == nil {
		errs = append(errs, errors.New("scheduler: no dispatcher"))
	}
	if err := cfg.Turn.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("scheduler: %w", err))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if deps.Logger == nil {
		deps.Logger = zap.NewNop()
	}
	log := deps.Logger.Named("scheduler")
	return &Scheduler{
		cfg:     cfg,
		deps:    deps,
		log:     log,
		model:   &modelHealth{log: log},
		sem:     make(chan struct{}, cfg.Concurrency),
		wakes:   newGate(cfg.Wakes),
		loops:   map[string]*loop{},
		changed: make(chan struct{}),
		wakeSeq: cfg.Now().UnixMilli(),
	}, nil
}

// Start recovers what a previous run left (sends of unknown outcome,
// unread messages) and starts the loops and the periodic tick. The loops
// run until ctx ends or Close is called.
func (s *Scheduler) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return errors.New("scheduler: already started")
	}
	s.started = true
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.life.start(s.ctx)
	early := make([]*loop, 0, len(s.loops))
	for _, l := range s.loops {
		early = append(early, l)
	}
	s.mu.Unlock()
	// Loops made before Start (messages delivered early) start now.
	for _, l := range early {
		l.schedule()
	}

	// With leases, each channel's leftovers are recovered by the process
	// that gains it (Resume).
	if s.deps.Leases == nil {
		if err := s.recoverOutbox(ctx, func(string) bool { return true }); err != nil {
			return err
		}
	}
	counts, err := s.deps.Store.UnreadCounts(ctx)
	if err != nil {
		return fmt.Errorf("count unread at start: %w", err)
	}
	for id, n := range counts {
		if n == 0 || !s.allowed(id) {
			continue
		}
		wake, err := s.reconsider(ctx, id)
		if err != nil {
			return err
		}
		if wake {
			_, _ = s.title(ctx, id) // for the log lines; the title is optional there
			s.log.Info("resuming channel with unread messages", s.chat(id), zap.Int("unread", n))
			s.loopFor(id).signal(TriggerRestart)
		}
	}
	if s.cfg.TickInterval > 0 {
		if pctx, ok := s.life.add(); ok {
			go s.periodic(pctx)
		}
	}
	return nil
}

// recoverOutbox marks sends interrupted by a crash as of unknown outcome and
// tells the model about them; they are never repeated.
func (s *Scheduler) recoverOutbox(ctx context.Context, channel func(id string) bool) error {
	pending, err := s.deps.Store.PendingOutbox(ctx)
	if err != nil {
		return fmt.Errorf("read outbox: %w", err)
	}
	for _, e := range pending {
		if !channel(e.ChannelID) {
			continue
		}
		if err := s.deps.Store.SetOutboxState(ctx, e.ID, state.OutboxUnknown, "", "interrupted by a restart"); err != nil {
			return fmt.Errorf("mark outbox entry %d unknown: %w", e.ID, err)
		}
		name, text := actions.NameSendMessage, fmt.Sprintf("before a restart you tried to send to %q: %q; it may or may not have gone out and was not repeated", e.ChannelID, e.Content)
		if e.Kind == state.OutboxReaction {
			name, text = actions.NameReact, fmt.Sprintf("before a restart you tried to react %s to message %q in %q; it may or may not have been set and was not repeated", e.Content, e.ReplyTo, e.ChannelID)
		}
		if _, err := s.deps.Store.AppendAction(ctx, state.ActionRecord{ChannelID: e.ChannelID, Name: name, Result: text, Time: s.cfg.Now()}); err != nil {
			return fmt.Errorf("record unknown send: %w", err)
		}
		s.log.Warn("send of unknown outcome after restart; not repeated", s.chat(e.ChannelID), zap.Int64("outbox", e.ID))
	}
	return nil
}

// Close stops intake, cancels running ticks and waits for every loop to
// end, or for ctx to end first.
func (s *Scheduler) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	cancel := s.cancel
	s.mu.Unlock()
	s.life.stop()
	if cancel != nil {
		cancel()
	}
	done := make(chan struct{})
	go func() {
		s.life.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("scheduler: close: %w", ctx.Err())
	}
}

func (s *Scheduler) allowed(id string) bool {
	return s.cfg.Allowed == nil || s.cfg.Allowed(id)
}

// loopFor returns the channel's loop, starting it when the scheduler runs.
func (s *Scheduler) loopFor(id string) *loop {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.loops[id]
	if ok {
		return l
	}
	l = newLoop(s, id)
	s.loops[id] = l
	return l
}

func (s *Scheduler) nextWake() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wakeSeq++
	return s.wakeSeq
}

// notifyChanged wakes everyone waiting in WaitIdle.
func (s *Scheduler) notifyChanged() {
	s.mu.Lock()
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

// periodic wakes channels that still have unread messages; channels with
// nothing unread cost no model call.
func (s *Scheduler) periodic(ctx context.Context) {
	defer s.life.done()
	t := time.NewTicker(s.cfg.TickInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.PeriodicTick(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("periodic tick", zap.Error(err))
			}
		}
	}
}

// PeriodicTick signals every allowed channel that has unread messages.
func (s *Scheduler) PeriodicTick(ctx context.Context) error {
	counts, err := s.deps.Store.UnreadCounts(ctx)
	if err != nil {
		return fmt.Errorf("count unread: %w", err)
	}
	for id, n := range counts {
		if n == 0 || !s.allowed(id) {
			continue
		}
		l := s.loopFor(id)
		if t := l.periodicTrigger(ctx); t != "" {
			l.signal(t)
		}
	}
	return nil
}

// Idle reports whether nothing is left to do: no unread message in an
// allowed channel, no tick running, no wake due (a sleeping channel with
// nothing unread is idle).
func (s *Scheduler) Idle(ctx context.Context) (bool, error) {
	s.mu.Lock()
	for _, l := range s.loops {
		if l.busy() {
			s.mu.Unlock()
			return false, nil
		}
	}
	s.mu.Unlock()
	counts, err := s.deps.Store.UnreadCounts(ctx)
	if err != nil {
		return false, fmt.Errorf("count unread: %w", err)
	}
	for id, n := range counts {
		// Under an attention policy, unread talk that wakes nothing leaves
		// the channel idle.
		if n > 0 && s.allowed(id) && (s.cfg.Attention == nil || s.loopFor(id).wanted()) {
			return false, nil
		}
	}
	return true, nil
}

// WaitIdle blocks until Idle holds or ctx ends.
func (s *Scheduler) WaitIdle(ctx context.Context) error {
	for {
		s.mu.Lock()
		changed := s.changed
		s.mu.Unlock()
		idle, err := s.Idle(ctx)
		if err != nil {
			return err
		}
		if idle {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}
