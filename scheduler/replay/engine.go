package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/state"
)

// Runtime is a runtime opened for one session on an empty store, driven
// step by step (its timers are never started).
type Runtime interface {
	// Deliver stores an incoming message and marks its channel woken.
	Deliver(ctx context.Context, ch state.Channel, msg state.Message) error
	// DeliverReaction stores a reaction to one of the bot's messages for
	// the next request, waking nothing.
	DeliverReaction(ctx context.Context, ch state.Channel, r state.Reaction) error
	// Wake runs one wake of a channel in the caller's goroutine.
	Wake(ctx context.Context, channelID string, trigger scheduler.Trigger) scheduler.WakeReport
	// StepReminders delivers the reminders due at the runtime's clock.
	StepReminders(ctx context.Context) (int, error)
	// Close releases the runtime and its store.
	Close() error
}

// Wiring is what a runtime opened for replay must be built with.
type Wiring struct {
	Header *Header
	// Model answers from the recording.
	Model planner.Model
	// Sender is the only adapter; its Name is the header's platform.
	Sender *Adapter
	// Now is the recorded clock; the runtime must take every time from it.
	Now func() time.Time
	// OnTick must be called with every tick the runtime records.
	OnTick func(state.Tick)
	// Tools answers every tool call from the recording; the runtime
	// starts no tool server and offers Header.Tools.
	Tools ToolCaller
}

// Opener opens a fresh runtime wired as given.
type Opener func(ctx context.Context, w Wiring) (Runtime, error)

// Sender is an adapter's send, for sends forwarded to a printing adapter.
type Sender interface {
	Send(ctx context.Context, out state.Outgoing) (string, error)
}

// Options change what a replay compares and who watches it.
type Options struct {
	// Prompts compares the rendered requests with the recorded ones.
	Prompts bool
	// Forward, when set, also receives every message sent (its ids are ignored).
	Forward Sender
	// OnEvent, when set, sees every incoming message and reaction as it
	// is delivered.
	OnEvent func(e *Event)
	// OnTick, when set, sees every replayed tick with its number in the
	// session (0 for a tick the recording does not have).
	OnTick func(n int, t state.Tick)
	// InterruptWait bounds how long a call recorded as interrupted waits
	// for the runtime to cancel it (default 10s); it only matters when the
	// runtime no longer interrupts, which is then reported.
	InterruptWait time.Duration
}

// errNoAnswer is what the replay model answers to a call the recording does not have.
var errNoAnswer = errors.New("replay: the recording has no answer for this call")

// errRecordingCut is what the replay model answers to a call of a wake
// whose recording stops in the middle: the bot crashed or was restarted
// while the call was in flight, so no answer was ever recorded.
var errRecordingCut = errors.New("replay: the recording stops here: the bot was stopped during this call")

// Play replays one session through a runtime made by open and compares
// what it does with the recording. The error is for replays that could not
// run at all; differences are in the report.
func Play(ctx context.Context, s *Session, open Opener, opt Options) (*Report, error) {
	if opt.InterruptWait <= 0 {
		opt.InterruptWait = 10 * time.Second
	}
	p := newPlayer(ctx, s, opt)
	rt, err := open(ctx, Wiring{Header: &s.Header, Model: p, Sender: p.adapter, Now: p.now, OnTick: p.onTick, Tools: p})
	if err != nil {
		return nil, fmt.Errorf("open runtime: %w", err)
	}
	defer rt.Close()
	p.rt = rt
	for w, wk := range p.wakes {
		first := p.ticks[wk.first]
		if _, err := p.deliverTo(p.pos[wk.first]); err != nil {
			return nil, err
		}
		p.mu.Lock()
		p.wake, p.next, p.interrupted = w, wk.first, false
		p.clock = first.Now
		p.mu.Unlock()
		rt.Wake(ctx, s.Header.Channel.ID, scheduler.Trigger(first.Trigger))
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p.mu.Lock()
		err := p.err
		p.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	if _, err := p.deliverTo(len(p.items)); err != nil {
		return nil, err
	}
	// A reminder the recording never sent may fall due by its end.
	if err := p.stepReminders(p.now(), nil, len(p.ticks)); err != nil {
		return nil, err
	}
	return p.report(), nil
}

type wakeSpan struct{ first, last int } // tick indexes, inclusive

// player is the replay model, the clock and the event feeder of one session.
type player struct {
	ctx context.Context
	s   *Session
	// items are the session's items, with the message that interrupted a
	// call moved after its tick where the recording put it before (see
	// interruptOrder).
	items []Item
	opt   Options
	ticks []*Tick
	pos   []int // item index of each tick
	wakes []wakeSpan
	// cut marks the wakes whose recording stops before the wake ended.
	cut     []bool
	adapter *Adapter
	rt      Runtime

	mu          sync.Mutex
	clock       time.Time
	delivered   int // items before this index are delivered (events) or passed (ticks)
	wake        int
	next        int // next recorded tick to answer with
	serving     int // recorded tick of the call in flight, or -1
	interrupted bool
	got         [][]state.Tick // replayed ticks, per recorded wake
	// cutServed marks recorded ticks answered as the end of a cut
	// recording: an interruption the recording cannot reproduce.
	cutServed map[int]bool
	// toolMiss holds, by recorded tick, a tool call the recording could
	// not answer.
	toolMiss map[int]toolMiss
	err      error
	// remLines are the reminder lines reached, remSent what the
	// reminder loop sent, stepping whether it runs now, and remDiv the
	// first difference between the two.
	remLines []*Reminder
	remSent  []string
	stepping bool
	remDiv   *Divergence
}

func newPlayer(ctx context.Context, s *Session, opt Options) *player {
	p := &player{ctx: ctx, s: s, opt: opt, serving: -1, items: lateOrder(interruptOrder(s.Items))}
	for i, it := range p.items {
		if it.Tick != nil {
			p.ticks = append(p.ticks, it.Tick)
			p.pos = append(p.pos, i)
		}
	}
	for i, t := range p.ticks {
		if i == 0 || t.Wake != p.ticks[i-1].Wake {
			p.wakes = append(p.wakes, wakeSpan{first: i, last: i})
		} else {
			p.wakes[len(p.wakes)-1].last = i
		}
	}
	p.got = make([][]state.Tick, len(p.wakes))
	p.cutServed = map[int]bool{}
	maxIter := s.Header.Settings.MaxIterations
	if maxIter <= 0 {
		maxIter = defaultMaxIterations
	}
	for w, wk := range p.wakes {
		// Only a stop leaves a wake unfinished: the recording ends there,
		// or the next wake is the one the restart began.
		stopped := w == len(p.wakes)-1 || p.ticks[p.wakes[w+1].first].Trigger == string(scheduler.TriggerRestart)
		p.cut = append(p.cut, stopped && wakeCut(p.ticks[wk.first:wk.last+1], maxIter))
	}
	if len(p.items) > 0 {
		if it := p.items[0]; it.Tick != nil {
			p.clock = it.Tick.Now
		} else {
			p.clock = itemTime(it)
		}
	}
	p.adapter = &Adapter{name: s.Header.Platform, p: p}
	return p
}

func (p *player) now() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.clock
}

// deliverTo delivers the events of items before index end not delivered
// yet and returns how many it delivered.
func (p *player) deliverTo(end int) (int, error) {
	n := 0
	for {
		p.mu.Lock()
		i := p.delivered
		if i >= end || i >= len(p.items) {
			p.mu.Unlock()
			return n, nil
		}
		p.delivered++
		ticks := p.ticksBefore(i)
		p.mu.Unlock()
		if d := p.items[i].Reminder; d != nil {
			if err := p.stepReminders(d.Time, d, ticks); err != nil {
				return n, err
			}
			continue
		}
		e := p.items[i].Event
		if e == nil {
			continue
		}
		ch := p.s.Header.Channel
		// Members are learnt from senders as the recording went, not
		// known from the start.
		ch.Members = nil
		if p.opt.OnEvent != nil {
			p.opt.OnEvent(e)
		}
		var err error
		if e.IsReaction() {
			err = p.rt.DeliverReaction(p.ctx, ch, e.ReactionOf(ch.ID))
		} else {
			err = p.rt.Deliver(p.ctx, ch, e.Message(ch.ID))
		}
		if err != nil {
			return n, fmt.Errorf("deliver event of line %d: %w", i+2, err)
		}
		n++
	}
}

// duringEnd returns the item index up to which events arrived while the
// call of recorded tick k was in flight: all of those before the next tick
// when the call was interrupted; as many as a held-back send counted; else
// those within the call's latency, unless the runtime would have been
// interrupted by them (then they came after the call).
func (p *player) duringEnd(k int, canInterrupt bool) int {
	t := p.ticks[k]
	end := len(p.items)
	if k+1 < len(p.ticks) {
		end = p.pos[k+1]
	}
	if t.Interrupted() {
		return end
	}
	i := p.pos[k] + 1
	if n, ok := heldBack(t); ok {
		for ; i < end && n > 0; i++ {
			if p.items[i].message() {
				n--
			}
		}
		return i
	}
	if canInterrupt {
		return i
	}
	done := t.Now.Add(time.Duration(t.LatencyMS) * time.Millisecond)
	for i < end && p.items[i].Event != nil && !p.items[i].Event.Time.After(done) {
		i++
	}
	return i
}

// heldBackText starts the result of a send held back because messages
// arrived during the call (actions' send handler).
var heldBackText = regexp.MustCompile(`^not sent: (\d+) new message`)

// heldBack returns how many messages held a recorded send back.
func heldBack(t *Tick) (int, bool) {
	m := heldBackText.FindStringSubmatch(t.Result)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// Complete answers a model call from the recording.
func (p *player) Complete(ctx context.Context, _ planner.Request) (planner.Response, error) {
	p.mu.Lock()
	k := p.next
	if k > p.wakes[p.wake].last {
		cut := p.cut[p.wake]
		p.mu.Unlock()
		if cut {
			return planner.Response{}, errRecordingCut
		}
		return planner.Response{}, errNoAnswer
	}
	p.next++
	p.serving = k
	canInterrupt := p.s.Header.Settings.Interrupt && !p.interrupted
	p.mu.Unlock()
	t := p.ticks[k]
	latency := time.Duration(t.LatencyMS) * time.Millisecond
	arrived, err := p.deliverTo(p.duringEnd(k, canInterrupt))
	if err != nil {
		p.fail(err)
		return planner.Response{}, err
	}
	if t.Interrupted() {
		if !canInterrupt {
			return planner.Response{}, fmt.Errorf("replay: tick %d was interrupted by a new message, but this runtime does not cancel the call", k+1)
		}
		if arrived == 0 {
			p.mu.Lock()
			cutHere := k == p.wakes[p.wake].last && p.cut[p.wake]
			if cutHere {
				p.cutServed[k] = true
			}
			p.mu.Unlock()
			if cutHere {
				// The bot stopped right after this interruption, and the
				// message that caused it is recorded before the tick (a
				// platform clock in whole seconds): nothing can interrupt
				// the replayed call, so it ends the wake as the stop did.
				return planner.Response{}, errRecordingCut
			}
			return planner.Response{}, fmt.Errorf("replay: tick %d was interrupted by a new message, but the session holds none after it", k+1)
		}
		p.mu.Lock()
		p.interrupted = true
		p.mu.Unlock()
		timer := time.NewTimer(p.opt.InterruptWait)
		defer timer.Stop()
		select {
		case <-ctx.Done():
			return planner.Response{Content: t.Raw, Latency: latency}, ctx.Err()
		case <-timer.C:
			return planner.Response{}, fmt.Errorf("replay: tick %d was interrupted by a new message, but the runtime did not cancel the call", k+1)
		}
	}
	p.mu.Lock()
	p.clock = t.Now.Add(latency)
	p.mu.Unlock()
	resp := planner.Response{Content: t.Raw, Reasoning: t.Reasoning, Usage: t.Usage, Latency: latency, Attempts: 1}
	if t.ModelError != "" {
		return resp, recordedError(t.ModelError)
	}
	return resp, nil
}

// interruptOrder returns items with each message that interrupted a call
// placed after the call's tick. A message carries the time its platform
// (or adapter) gave it, which can precede the moment it was stored: a
// message read just before a tick began but stored while its call was in
// flight is recorded before the tick it interrupted. When an interrupted
// tick has no message after it, the message right before it, if the
// tick's request does not show it, is the one that interrupted it.
func interruptOrder(items []Item) []Item {
	out := slices.Clone(items)
	for i, it := range out {
		if it.Tick == nil || !it.Tick.Interrupted() || i == 0 || !out[i-1].message() {
			continue
		}
		after := false
		for j := i + 1; j < len(out) && out[j].Tick == nil; j++ {
			after = true
		}
		if after || showsMessage(it.Tick, out[i-1].Event.Content) {
			continue
		}
		out[i-1], out[i] = out[i], out[i-1]
	}
	return out
}

// storeLag bounds how long before a tick's clock a message may carry its
// time and still have been stored only after the tick's request was built.
const storeLag = 2 * time.Second

// lateOrder returns items with each message that was stored only after a
// tick's request was built placed after that tick. An adapter stamps a
// message when it reads it and stores it a moment later; a wake that began
// in between recorded a request without it. Such a message is right before
// the tick, at most storeLag before the tick's clock, not shown in the
// request, and the request says nothing more is unread; a message held
// back by the request's display budget is counted there as unread and
// stays where it is.
func lateOrder(items []Item) []Item {
	out := slices.Clone(items)
	for i := 0; i < len(out); i++ {
		t := out[i].Tick
		if t == nil || len(t.Request) == 0 || strings.Contains(t.Request[len(t.Request)-1].Content, "more unread here") {
			continue
		}
		j := i
		for j > 0 && out[j-1].message() && !showsMessage(t, out[j-1].Event.Content) &&
			!out[j-1].Event.Time.Before(t.Now.Add(-storeLag)) {
			j--
		}
		if j == i {
			continue
		}
		late := slices.Clone(out[j:i])
		copy(out[j:], out[i:i+1])
		copy(out[j+1:], late)
		i = j + len(late)
	}
	return out
}

// showsMessage reports whether a tick's request shows a message: the
// start of its text (a request may cut the rest), as written or quoted.
func showsMessage(t *Tick, text string) bool {
	const n = 200
	if len(text) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	if shows(t, text) {
		return true
	}
	q, err := json.Marshal(text)
	return err == nil && shows(t, string(q[1:len(q)-1]))
}

// shows reports whether a tick's request holds text.
func shows(t *Tick, text string) bool {
	for _, m := range t.Request {
		if strings.Contains(m.Content, text) {
			return true
		}
	}
	return false
}

// defaultMaxIterations is the runtime's iteration cap when a session's
// header does not name one.
const defaultMaxIterations = 5

// wakeCut reports whether the recording of a wake stops before the wake
// ended: its last tick asked for another (an interrupted call, or an
// action whose result continues the wake) and the iteration cap was not
// reached. Only a crash or a restart during the next model call leaves
// such a recording; the replayed wake then stops there too.
func wakeCut(ticks []*Tick, maxIterations int) bool {
	last := ticks[len(ticks)-1]
	switch {
	case last.Interrupted():
		return true
	case len(ticks) >= maxIterations, last.ModelError != "":
		return false
	case last.ParseError != "":
		return true
	}
	var a struct {
		Action string `json:"action"`
	}
	if json.Unmarshal(last.Action, &a) != nil {
		return false
	}
	switch a.Action {
	case "continue", "break", "sleep", "":
		return false
	}
	return true
}

// recordedError rebuilds a recorded model failure with its text, permanent
// or a context-length refusal when it was.
func recordedError(text string) error {
	text = strings.TrimPrefix(text, "model call: ")
	if strings.Contains(text, planner.ErrContextLength.Error()) {
		return contextError(text)
	}
	if strings.Contains(text, planner.ErrPermanent.Error()) {
		return permanentError(text)
	}
	return errors.New(text)
}

// contextError is a recorded refusal of a request as too long for the
// model: the scheduler retries it with a smaller history.
type contextError string

func (e contextError) Error() string { return string(e) }

func (e contextError) Unwrap() error { return planner.ErrContextLength }

// permanentError is a recorded failure that retrying cannot fix.
type permanentError string

func (e permanentError) Error() string { return string(e) }

func (e permanentError) Unwrap() error { return planner.ErrPermanent }

func (p *player) fail(err error) {
	p.mu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.mu.Unlock()
}

// onTick follows the runtime from one tick to the next: it keeps the tick
// for comparison, delivers the events that came after the call, and sets
// the clock to the next recorded tick of the wake.
func (p *player) onTick(t state.Tick) {
	p.mu.Lock()
	k := p.serving
	p.serving = -1
	p.got[p.wake] = append(p.got[p.wake], t)
	next := p.next
	last := p.wakes[p.wake].last
	p.mu.Unlock()
	if p.opt.OnTick != nil {
		n := 0
		if k >= 0 {
			n = k + 1
		}
		p.opt.OnTick(n, t)
	}
	if k >= 0 && k+1 < len(p.ticks) && next <= last {
		if _, err := p.deliverTo(p.pos[k+1]); err != nil {
			p.fail(err)
		}
		p.mu.Lock()
		p.clock = p.ticks[next].Now
		p.mu.Unlock()
	}
}
