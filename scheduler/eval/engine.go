// Package eval plays labelled sessions through a runtime wired to a live
// model and measures how the bot behaves and what it costs: how answers
// parse, whether it speaks when it should and keeps quiet when it should,
// model calls and tokens per message, how much of each request a prefix
// cache can reuse, and how long calls take.
//
// A session for eval needs only its header and its events (recorded
// ticks are not played). The gaps between events pass on a virtual clock:
// the scheduler is stepped with NextDue and RunDue instead of its timers,
// so debounces, sleeps, re-arms and periodic ticks fall due as if the time
// had passed, and an hour of chat plays in the time its model calls take.
package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/state"
)

// Runtime is a runtime opened for one run of one session on an empty
// store, never started: the engine steps it.
type Runtime interface {
	// Deliver stores an incoming message and schedules its channel's wake.
	Deliver(ctx context.Context, ch state.Channel, msg state.Message) error
	// DeliverReaction stores a reaction to one of the bot's messages for
	// the next state message; it wakes nothing.
	DeliverReaction(ctx context.Context, ch state.Channel, r state.Reaction) error
	// NextDue returns the channel whose wake falls due first, when and why.
	NextDue() (channelID string, at time.Time, trigger string, ok bool)
	// RunDue runs a channel's scheduled wake in the caller's goroutine.
	RunDue(ctx context.Context, channelID string) (scheduler.WakeReport, bool)
	// PeriodicTick schedules a wake for every channel with unread messages.
	PeriodicTick(ctx context.Context) error
	// Idle reports that no wake is running or due (sleeps aside) and
	// nothing is unread.
	Idle(ctx context.Context) (bool, error)
	// Unread returns the channel's messages not yet shown to the model.
	Unread(ctx context.Context, channelID string) ([]state.Message, error)
	// Close releases the runtime and its store.
	Close() error
}

// Wiring is what a runtime opened for eval must be built with; the model
// is the opener's (the live one).
type Wiring struct {
	Header *replay.Header
	// Sender is the only adapter; its Name is the header's platform.
	Sender *Adapter
	// Now is the virtual clock; the runtime must take every time from it.
	Now func() time.Time
	// OnTick must be called with every tick the runtime records.
	OnTick func(state.Tick)
}

// Opener opens a fresh runtime wired as given.
type Opener func(ctx context.Context, w Wiring) (Runtime, error)

// Options tune how a session is played.
type Options struct {
	// TickInterval is the periodic tick (AIRI_TICK_INTERVAL); zero or
	// negative turns it off.
	TickInterval time.Duration
	// ContinueDelay is the virtual time between the ticks of one wake
	// (AIRI_CONTINUE_DELAY); the runtime itself must not wait.
	ContinueDelay time.Duration
	// Tail is how long after the last event the session goes on (sleeps
	// and re-arms falling due); 10 minutes when zero.
	Tail time.Duration
	// MaxWakes bounds the wakes of one run, against a runtime that never
	// settles; 50 per event (at least 200) when zero.
	MaxWakes int
}

// Tick is one model call of a run.
type Tick struct {
	// N numbers the calls of the run from 1.
	N int
	state.Tick
}

// EventResult is what became of one incoming message.
type EventResult struct {
	Event *replay.Event
	// Wake is the wake that first showed the message to the model; zero
	// when no answered request ever showed it.
	Wake int64
	// Sent are the messages the bot sent in that wake.
	Sent []actions.Effect
}

// Run is one play of one session.
type Run struct {
	Session *replay.Session
	Ticks   []Tick
	Events  []EventResult
	// Start and End are the virtual times the run covered.
	Start, End time.Time
}

// errUnsettled is returned when a run keeps waking past Options.MaxWakes.
var errUnsettled = errors.New("the runtime kept waking without settling")

// Play plays the incoming events of s through a runtime made by open and
// returns what it did. When ctx ends, the run so far is returned with
// ctx's error.
func Play(ctx context.Context, s *replay.Session, open Opener, opt Options) (*Run, error) {
	if opt.Tail <= 0 {
		opt.Tail = 10 * time.Minute
	}
	p := newPlayer(s)
	if opt.MaxWakes <= 0 {
		opt.MaxWakes = max(50*len(p.events), 200)
	}
	run := &Run{Session: s, Start: p.clock}
	if len(p.events) == 0 {
		run.End = p.clock
		return run, nil
	}
	rt, err := open(ctx, Wiring{Header: &s.Header, Sender: &Adapter{name: s.Header.Platform, ids: recordedSends(s)}, Now: p.now, OnTick: func(t state.Tick) {
		p.onTick(ctx, t, opt.ContinueDelay)
	}})
	if err != nil {
		return nil, fmt.Errorf("open runtime: %w", err)
	}
	defer rt.Close()
	p.rt = rt
	err = p.play(ctx, opt)
	run.Ticks, run.End = p.ticks, p.now()
	run.Events = p.results()
	if err == nil {
		err = p.failure()
	}
	return run, err
}

// player is the virtual clock and the event feeder of one run.
type player struct {
	s      *replay.Session
	events []*replay.Event // the messages, the lines scored
	// reactions are played in time with the messages, never scored.
	reactions []*replay.Event
	rt        Runtime

	mu        sync.Mutex
	clock     time.Time
	delivered int
	reacted   int     // reactions delivered
	shownIn   []int64 // per event: the wake that first showed it
	ticks     []Tick
	err       error
}

func newPlayer(s *replay.Session) *player {
	p := &player{s: s}
	for _, it := range s.Items {
		if it.Event == nil {
			continue
		}
		if it.Event.IsReaction() {
			p.reactions = append(p.reactions, it.Event)
			continue
		}
		e := *it.Event
		if e.PlatformID == "" {
			// Shown messages are found by their platform id.
			e.PlatformID = fmt.Sprintf("eval-in-%d", len(p.events)+1)
		}
		p.events = append(p.events, &e)
	}
	p.shownIn = make([]int64, len(p.events))
	if len(p.events) > 0 {
		p.clock = p.events[0].Time
	}
	return p
}

func (p *player) now() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.clock
}

// advance moves the clock to t unless it is already later.
func (p *player) advance(t time.Time) {
	p.mu.Lock()
	if t.After(p.clock) {
		p.clock = t
	}
	p.mu.Unlock()
}

func (p *player) fail(err error) {
	p.mu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.mu.Unlock()
}

func (p *player) failure() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// play steps the runtime through the session in virtual time: at each
// step the earliest of the next event, the next wake due and the next
// periodic tick happens, events first on a tie.
func (p *player) play(ctx context.Context, opt Options) error {
	last := p.events[len(p.events)-1].Time
	horizon := last.Add(opt.Tail)
	var periodic time.Time
	if opt.TickInterval > 0 {
		periodic = p.events[0].Time.Add(opt.TickInterval)
	}
	wakes := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := p.failure(); err != nil {
			return err
		}
		p.mu.Lock()
		next := p.delivered
		p.mu.Unlock()
		id, due, _, dueOK := p.rt.NextDue()
		if dueOK {
			due = maxTime(due, p.now())
		}
		switch {
		case next < len(p.events) && (!dueOK || !p.events[next].Time.After(due)) &&
			(periodic.IsZero() || !p.events[next].Time.After(periodic)):
			p.advance(p.events[next].Time)
			if err := p.deliverUpTo(ctx, p.events[next].Time); err != nil {
				return err
			}
		case dueOK && (periodic.IsZero() || !due.After(periodic)) && (next < len(p.events) || !due.After(horizon)):
			wakes++
			if wakes > opt.MaxWakes {
				return fmt.Errorf("%w: %d wakes", errUnsettled, wakes-1)
			}
			p.advance(due)
			if err := p.deliverReactions(ctx, due); err != nil {
				return err
			}
			p.rt.RunDue(ctx, id)
		case !periodic.IsZero() && (next < len(p.events) || !periodic.After(horizon)):
			if next >= len(p.events) && !dueOK {
				idle, err := p.rt.Idle(ctx)
				if err != nil {
					return fmt.Errorf("check idle: %w", err)
				}
				if idle {
					return nil
				}
			}
			p.advance(periodic)
			if err := p.deliverReactions(ctx, periodic); err != nil {
				return err
			}
			periodic = periodic.Add(opt.TickInterval)
			if err := p.rt.PeriodicTick(ctx); err != nil {
				return fmt.Errorf("periodic tick: %w", err)
			}
		default:
			return nil
		}
	}
}

// deliverReactions stores the reactions not delivered yet whose time is
// not after t. A reaction wakes nothing, so it needs no step of its own:
// it is delivered before the next step that could show it.
func (p *player) deliverReactions(ctx context.Context, t time.Time) error {
	ch := p.s.Header.Channel
	for {
		i, ok := p.take(&p.reacted, p.reactions, t)
		if !ok {
			return nil
		}
		if err := p.rt.DeliverReaction(ctx, ch, p.reactions[i].ReactionOf(ch.ID)); err != nil {
			return fmt.Errorf("deliver reaction %d: %w", i+1, err)
		}
	}
}

// take counts the line at *next of lines delivered and returns its index,
// when there is one and its time is not after t.
func (p *player) take(next *int, lines []*replay.Event, t time.Time) (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := *next
	if i >= len(lines) || lines[i].Time.After(t) {
		return 0, false
	}
	*next = i + 1
	return i, true
}

// deliverUpTo delivers the events not delivered yet whose time is not
// after t, and the reactions until then.
func (p *player) deliverUpTo(ctx context.Context, t time.Time) error {
	if err := p.deliverReactions(ctx, t); err != nil {
		return err
	}
	ch := p.s.Header.Channel
	// Members are learnt from senders as the chat goes.
	ch.Members = nil
	for {
		i, ok := p.take(&p.delivered, p.events, t)
		if !ok {
			return nil
		}
		e := p.events[i]
		if err := p.rt.Deliver(ctx, ch, e.Message(ch.ID)); err != nil {
			return fmt.Errorf("deliver event %d: %w", i+1, err)
		}
	}
}

// onTick keeps the tick, notes which delivered messages its request
// showed (they are read now), moves the clock past the call and delivers
// the events that arrived meanwhile.
func (p *player) onTick(ctx context.Context, t state.Tick, continueDelay time.Duration) {
	p.mu.Lock()
	p.ticks = append(p.ticks, Tick{N: len(p.ticks) + 1, Tick: t})
	delivered := p.delivered
	p.mu.Unlock()
	if t.ModelError == "" {
		unread, err := p.rt.Unread(ctx, p.s.Header.Channel.ID)
		if err != nil {
			p.fail(fmt.Errorf("read unread after tick: %w", err))
			return
		}
		waiting := make(map[string]bool, len(unread))
		for _, m := range unread {
			waiting[m.PlatformID] = true
		}
		p.mu.Lock()
		for i := range delivered {
			if p.shownIn[i] == 0 && !waiting[p.events[i].PlatformID] {
				p.shownIn[i] = t.Wake
			}
		}
		p.mu.Unlock()
	}
	p.advance(t.Now.Add(time.Duration(t.LatencyMS)*time.Millisecond + max(continueDelay, 0)))
	if err := p.deliverUpTo(ctx, p.now()); err != nil {
		p.fail(err)
	}
}

// results pairs every event with the wake that showed it and what that
// wake sent.
func (p *player) results() []EventResult {
	p.mu.Lock()
	defer p.mu.Unlock()
	sent := map[int64][]actions.Effect{}
	for _, t := range p.ticks {
		for _, e := range effects(t.Tick) {
			if e.Kind == "send" {
				sent[t.Wake] = append(sent[t.Wake], e)
			}
		}
	}
	out := make([]EventResult, len(p.events))
	for i, e := range p.events {
		out[i] = EventResult{Event: e, Wake: p.shownIn[i]}
		if w := p.shownIn[i]; w != 0 {
			out[i].Sent = sent[w]
		}
	}
	return out
}

// effects decodes a tick's effects; unreadable ones count as none.
func effects(t state.Tick) []actions.Effect {
	if len(t.Effects) == 0 {
		return nil
	}
	var out []actions.Effect
	if json.Unmarshal(t.Effects, &out) != nil {
		return nil
	}
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Adapter is the adapter of an eval run: every send succeeds and goes
// nowhere; the ticks' effects hold what was sent. The run's k-th message
// takes the platform id of the session's k-th recorded send, so that a
// reaction line to the bot's k-th message reacts to the run's.
type Adapter struct {
	name string
	ids  []string // of the recorded sends, in order

	mu sync.Mutex
	n  int
}

// Name returns the session's platform.
func (a *Adapter) Name() string { return a.name }

// Send accepts the message and gives it the next recorded id, or a
// fresh one past them.
func (a *Adapter) Send(_ context.Context, _ state.Outgoing) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n++
	if a.n <= len(a.ids) {
		return a.ids[a.n-1], nil
	}
	return fmt.Sprintf("eval-out-%d", a.n), nil
}

// recordedSends returns the platform ids of the session's recorded sends
// in order.
func recordedSends(s *replay.Session) []string {
	var ids []string
	for _, it := range s.Items {
		if it.Tick == nil {
			continue
		}
		for _, e := range it.Tick.EffectList() {
			if e.Kind == "send" && e.MessageID != "" {
				ids = append(ids, e.MessageID)
			}
		}
	}
	return ids
}
