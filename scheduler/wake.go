package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/internal/backoff"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/parse"
	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state"
)

// WakeReport says what one wake did.
type WakeReport struct {
	Trigger Trigger
	// Skipped is set when the wake found nothing to do (no model call).
	Skipped    bool
	Iterations int
	// Capped: the wake ended on its iteration cap while the model still asked for more.
	Capped bool
	// Unanswered: messages delivered in this wake got no send and no continue.
	Unanswered  bool
	Sleep       time.Duration
	ModelFailed bool
	Fatal       bool
	// Budget: the token budget refused a model call; the channel waits
	// for it to allow one again.
	Budget bool
	// PausedUntil is set when the wake was skipped because an operator
	// paused the channel until then.
	PausedUntil time.Time
}

type wakeState struct {
	id          int64
	trigger     Trigger
	aborted     bool
	interrupted bool
	// pending are the messages of the previous call's read result: the
	// next request shows that result, and they are marked read once the
	// model answers it. A wake that ends first leaves them unread.
	pending []state.Message
	// shrink halves the history's share of the budget for the rest of the
	// wake, after the model refused a request as too long.
	shrink int
	budget bool // the token budget refused a call
}

// maxShrink bounds how far a wake shrinks the history after refusals.
const maxShrink = 4

type tickOutcome struct {
	delivered   int
	res         actions.Result
	interrupted bool
	modelErr    error
	// watermark is the newest stored message id when the request was built.
	watermark int64
}

// skipPaused is the recorded reason of a wake skipped because an operator
// paused the channel.
const skipPaused = "paused"

// Wake runs one wake of a channel now, in the caller's goroutine, with the
// given trigger (TriggerMessage, TriggerPeriodic, ...). Tests and replay
// drive the loop with it; it never overlaps another wake of the channel.
func (s *Scheduler) Wake(ctx context.Context, channelID string, trigger Trigger) WakeReport {
	return s.loopFor(channelID).wake(ctx, trigger)
}

func (l *loop) wake(ctx context.Context, trig Trigger) WakeReport {
	l.wakeMu.Lock()
	defer l.wakeMu.Unlock()
	l.mu.Lock()
	l.arrived = make(chan struct{}, 1)
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.arrived = nil
		l.mu.Unlock()
	}()
	s := l.s
	if rep, ok := l.paused(ctx, trig); ok {
		return rep
	}
	rep := WakeReport{Trigger: trig}
	switch {
	case fromMessage(trig), trig == TriggerPeriodic, trig == TriggerRestart, trig == TriggerUnread,
		trig == TriggerRetry, trig == TriggerBudgetResume:
		unread, err := l.hasUnread(ctx)
		if err != nil {
			s.log.Warn("count unread before wake", zap.String("channel", l.id), zap.Error(err))
			rep.ModelFailed = true
			return rep
		}
		if !unread {
			rep.Skipped = true
			return rep
		}
	}
	if s.budgetLevel(ctx, l.id, s.cfg.Now()) == budget.Exhausted {
		l.holdForBudget(ctx, trig)
		rep.Budget = true
		return rep
	}
	if s.deps.OnWake != nil {
		s.deps.OnWake(l.id, string(trig))
	}
	w := &wakeState{id: s.nextWake(), trigger: trig}
	unanswered := false
	for rep.Iterations < s.cfg.MaxIterations {
		if rep.Iterations > 0 && backoff.Sleep(ctx, s.cfg.ContinueDelay) != nil {
			return rep
		}
		release, ok := s.pin(l.id)
		if !ok {
			// Another process drives the channel now.
			rep.Skipped = rep.Iterations == 0
			return rep
		}
		out := l.tick(ctx, w)
		release()
		if w.budget {
			rep.Budget = true
			break
		}
		rep.Iterations++
		if ctx.Err() != nil {
			return rep
		}
		if out.interrupted {
			continue
		}
		if out.modelErr != nil {
			rep.ModelFailed = true
			rep.Fatal = errors.Is(out.modelErr, planner.ErrPermanent)
			if rep.Fatal && s.deps.OnFatal != nil {
				s.deps.OnFatal(out.modelErr)
			}
			break
		}
		if out.delivered > 0 {
			unanswered = true
		}
		if out.res.Answered {
			unanswered = false
		}
		if out.res.Aborted {
			w.aborted = true
		}
		if out.res.Sleep > 0 {
			rep.Sleep = out.res.Sleep
			break
		}
		if !l.next(ctx, out, unanswered) {
			break
		}
		if rep.Iterations >= s.cfg.MaxIterations {
			rep.Capped = true
		}
	}
	rep.Unanswered = unanswered
	return rep
}

// paused reports a wake skipped because an operator paused the channel,
// recording why.
func (l *loop) paused(ctx context.Context, trig Trigger) (WakeReport, bool) {
	s := l.s
	rep := WakeReport{Trigger: trig}
	if s.deps.Controls == nil {
		return rep, false
	}
	c, err := s.deps.Controls.ChannelControl(ctx, l.id)
	if err != nil {
		s.log.Warn("read channel control before wake", zap.String("channel", l.id), zap.Error(err))
		return rep, false
	}
	now := s.cfg.Now()
	if !c.PausedAt(now) {
		return rep, false
	}
	rep.Skipped = true
	rep.PausedUntil = c.PausedUntil
	fields := []zap.Field{zap.String("channel", l.id), zap.String("reason", "paused by an operator"), zap.String("trigger", string(trig))}
	if !c.PausedUntil.IsZero() {
		fields = append(fields, zap.Time("until", c.PausedUntil))
	}
	s.log.Info("wake skipped", fields...)
	if s.deps.OnSkip != nil {
		s.deps.OnSkip(l.id, skipPaused)
	}
	// Every skipped wake has its reason in the store, beside the ticks.
	if _, err := s.deps.Store.AddSkippedWake(ctx, state.SkippedWake{
		ChannelID: l.id, Trigger: string(trig), Reason: skipPaused, Time: now,
	}); err != nil {
		s.log.Warn("record a wake skipped for a pause", zap.String("channel", l.id), zap.Error(err))
	}
	return rep, true
}

// next decides whether the wake goes on after a tick. Under the send-ends
// semantics a send that went out ends the wake unless messages arrived for
// the channel while the model was deciding, or messages the wake delivered
// are still unanswered (the send went to another channel).
func (l *loop) next(ctx context.Context, out tickOutcome, unanswered bool) bool {
	if l.s.cfg.Turn != TurnSendEnds || !out.res.EndsTurn {
		return out.res.Next
	}
	if unanswered {
		return true
	}
	fresh, err := l.arrivedSince(ctx, out.watermark)
	if err != nil {
		// Another call is the safe side: the model sees what is new.
		l.s.log.Warn("check for messages that arrived during the tick", zap.String("channel", l.id), zap.Error(err))
		return true
	}
	return fresh
}

// hasUnread reports whether the channel has an unread message.
func (l *loop) hasUnread(ctx context.Context) (bool, error) {
	return l.arrivedSince(ctx, 0)
}

// arrivedSince reports unread messages of the channel newer than watermark.
func (l *loop) arrivedSince(ctx context.Context, watermark int64) (bool, error) {
	n, err := l.s.deps.Store.CountUnreadAfter(ctx, l.id, watermark)
	if err != nil {
		return false, fmt.Errorf("count unread: %w", err)
	}
	return n > 0, nil
}

// tick runs one model call and the action it produced.
func (l *loop) tick(ctx context.Context, w *wakeState) tickOutcome {
	s := l.s
	// The model slot is taken before the request is built, not only for
	// the call: in a burst as many requests are built and held at once as
	// there are slots, not one per waiting channel (their memory, and CPU
	// that the intake of new messages needs), and a request shows what
	// arrived while its channel waited. It is given back before the action
	// runs.
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return tickOutcome{modelErr: ctx.Err()}
	}
	holding := true
	freeSlot := func() {
		if holding {
			holding = false
			<-s.sem
		}
	}
	defer freeSlot()
	now := s.cfg.Now()
	rec := state.Tick{ChannelID: l.id, Wake: w.id, Trigger: string(w.trigger), Now: now}
	fail := func(what string, err error) tickOutcome { return l.fail(ctx, &rec, what, err) }

	// Messages that arrived before the request is built are part of it.
	select {
	case <-l.arrived:
	default:
	}
	release := func(int64) {}
	if s.deps.Budget != nil {
		rel, ok, err := s.deps.Budget.Admit(ctx, l.id, now)
		if err != nil {
			return fail("check the token budget", err)
		}
		if !ok {
			s.log.Info("token budget used up: no model call; unread messages wait for the budget", zap.String("channel", l.id))
			w.budget = true
			l.holdForBudget(ctx, w.trigger)
			return tickOutcome{}
		}
		release = rel
	}
	spent := int64(0)
	defer func() { release(spent) }()

	in, watermark, prompt, req, what, err := l.request(ctx, w, now, &rec)
	if err != nil {
		return fail(what, err)
	}
	stopTyping := s.typing(ctx, l.id)
	defer stopTyping()
	resp, interrupted, err := s.complete(ctx, l, w, req, watermark)
	if err != nil && !interrupted && ctx.Err() == nil && errors.Is(err, planner.ErrContextLength) && w.shrink < maxShrink {
		// The estimate was over what this model takes: record the refusal,
		// halve the history and ask once more.
		w.shrink++
		s.log.Warn("the model refused the request as longer than its context; retrying once with half the history (lower AIRI_PROMPT_MAX_TOKENS to avoid this)",
			zap.String("channel", l.id), zap.Int("estimated_tokens", prompt.Tokens), zap.Int("shrink", w.shrink), zap.Error(err))
		rec.ModelError = fmt.Sprintf("model call: %v", err)
		s.record(ctx, rec)
		rec = state.Tick{ChannelID: l.id, Wake: w.id, Trigger: string(w.trigger), Now: now}
		in, watermark, prompt, req, what, err = l.request(ctx, w, now, &rec)
		if err != nil {
			return fail(what, err)
		}
		resp, interrupted, err = s.complete(ctx, l, w, req, watermark)
	}
	freeSlot()
	stopTyping()
	spent = s.cost(req, resp, err)
	if s.cfg.Attention != nil && (err != nil || interrupted) {
		l.called(now, nil)
	}
	rec.Raw, rec.Reasoning, rec.Usage = resp.Content, resp.Reasoning, resp.Usage
	rec.LatencyMS = resp.Latency.Milliseconds()
	if interrupted {
		w.interrupted = true
		rec.ModelError = "interrupted: a new message arrived; planning again with it"
		s.record(ctx, rec)
		return tickOutcome{interrupted: true}
	}
	if err != nil {
		if ctx.Err() != nil {
			return tickOutcome{modelErr: err}
		}
		return fail("model call", err)
	}

	s.model.observe(l.id, nil)
	// The answer is handled in a function of its own: the frame of this
	// one is what a wake waiting on the model keeps on its stack.
	return l.answered(ctx, w, now, &rec, in.Incoming, prompt.Shown, resp.Content, watermark)
}

// fail records a tick that failed at what (a step, or "model call").
func (l *loop) fail(ctx context.Context, rec *state.Tick, what string, err error) tickOutcome {
	s := l.s
	if ctx.Err() != nil {
		// Shutting down: the cancellation is not a failure to report.
		return tickOutcome{modelErr: err}
	}
	if !strings.HasPrefix(err.Error(), what+":") && !strings.HasPrefix(err.Error(), what+" ") {
		err = fmt.Errorf("%s: %w", what, err)
	}
	rec.ModelError = err.Error()
	if what == "model call" {
		s.model.observe(l.id, err)
	} else {
		s.log.Error("tick failed", zap.String("channel", l.id), zap.Error(err))
	}
	s.record(ctx, *rec)
	return tickOutcome{modelErr: err}
}

// answered handles the model's answer to a tick's request: it marks what
// the request showed read, parses and runs the action, and records the
// tick. incoming are the messages the request offered as new, shownIDs
// the ids of those it showed.
func (l *loop) answered(ctx context.Context, w *wakeState, now time.Time, rec *state.Tick, incoming []state.Message, shownIDs []int64, content string, watermark int64) tickOutcome {
	s := l.s
	fail := func(what string, err error) tickOutcome { return l.fail(ctx, rec, what, err) }

	// Read means seen: the model has answered a request that showed these
	// messages, the new ones in the state message and those of the
	// previous call's read result.
	shown := shownMessages(incoming, shownIDs)
	ids := make([]int64, 0, len(shown)+len(w.pending))
	for _, m := range shown {
		ids = append(ids, m.ID)
	}
	for _, m := range w.pending {
		ids = append(ids, m.ID)
	}
	if len(ids) > 0 {
		if err := s.deps.Store.MarkRead(ctx, ids); err != nil {
			return fail("mark shown messages read", err)
		}
	}
	seen := shown
	for _, m := range w.pending {
		if m.ChannelID == l.id {
			seen = append(seen, m)
		}
	}
	w.pending = nil
	if s.cfg.Attention != nil {
		l.called(now, seen)
	}
	out := tickOutcome{delivered: len(shown), watermark: watermark}

	actRec := state.ActionRecord{ChannelID: l.id, Wake: w.id, Time: now}
	parsed, perr := s.deps.Parser.Parse(content)
	if perr != nil {
		kind := parse.KindNoAction
		if pe := (*parse.Error)(nil); errors.As(perr, &pe) {
			kind = pe.Kind()
		}
		s.log.Info("answer did not parse; the model is told why", zap.String("channel", l.id), zap.String("kind", kind), zap.Int("chars", len(content)))
		rec.ParseError = perr.Error()
		out.res = actions.Result{Next: true, Text: "your answer was not a valid action: " + perr.Error()}
		actRec.Name = "invalid"
		// Messages whose answer could not be read are shown as new again,
		// beside whatever arrives next, so they are not left behind in the
		// history; the wake's cap bounds how often.
		l.carry = make([]state.Message, len(seen))
		for i, m := range seen {
			m.Read = true
			l.carry[i] = m
		}
	} else {
		l.carry = nil
		rec.Notes = parsed.Notes
		raw, err := json.Marshal(parsed.Action)
		if err != nil {
			return fail("encode action", err)
		}
		rec.Action, actRec.Action = raw, raw
		actRec.Name, actRec.Reasoning = parsed.Action.Name, parsed.Reasoning
		out.res = s.deps.Dispatcher.Dispatch(ctx, actions.Call{
			Channel: l.id, Action: parsed.Action, Watermark: watermark, MayAbort: !w.aborted,
		})
		out.delivered += out.res.Delivered
		if parsed.Action.Name == actions.NameSendMessage {
			s.logSend(l.id, out.res)
		}
	}
	rec.Result, rec.OK = out.res.Text, out.res.OK
	actRec.Result, actRec.OK = out.res.Text, out.res.OK
	if s.cfg.Attention != nil {
		for _, e := range out.res.Effects {
			if e.Kind == "send" && s.allowed(e.ChannelID) {
				s.loopFor(e.ChannelID).spoke(now)
			}
		}
	}
	if len(out.res.Effects) > 0 {
		if eff, err := json.Marshal(out.res.Effects); err == nil {
			rec.Effects = eff
		}
	}
	// What happened is recorded even when shutdown cancelled the tick.
	bg := context.WithoutCancel(ctx)
	var act *state.ActionRecord
	if actRec.Name != actions.NameBreak {
		act = &actRec
	}
	tickID, actionStored := s.recordEnd(bg, act, *rec)
	if actionStored && len(out.res.Shown) > 0 {
		// The next request shows this result; what it lists is read
		// once the model answers that request.
		w.pending = out.res.Shown
	}
	if len(out.res.Notes) > 0 && tickID > 0 {
		if err := s.deps.Store.SetNoteTick(bg, out.res.Notes, tickID); err != nil {
			s.log.Error("record the tick that wrote notes", zap.String("channel", l.id), zap.Error(err))
		}
	}
	return out
}

// cost is what a model call spent against the budget: the usage the
// provider reported, else an estimate of the request and the answer (a
// call cancelled or failed after it was sent may still be billed).
func (s *Scheduler) cost(req planner.Request, resp planner.Response, err error) int64 {
	if n := resp.Usage.PromptTokens + resp.Usage.CompletionTokens; n > 0 {
		return int64(n)
	}
	if s.deps.Budget == nil || (err != nil && resp.Content == "" && errors.Is(err, planner.ErrPermanent)) {
		return 0
	}
	n := s.estimate(resp.Content)
	for _, m := range req.Messages {
		n += s.estimate(m.Content)
	}
	return int64(n)
}

// recordEnd records the end of a tick: the action record (when there is
// one), the trim of the action history and the tick record, in one
// transaction; if that fails (nothing was stored), one by one, so that
// what can be kept is. It returns the tick's id and whether the action
// record was stored.
func (s *Scheduler) recordEnd(ctx context.Context, act *state.ActionRecord, rec state.Tick) (tickID int64, actionStored bool) {
	_, id, err := s.deps.Store.RecordTick(ctx, act, s.cfg.ActionKeep, s.cfg.ActionOver, rec)
	if err == nil {
		if s.deps.OnTick != nil {
			s.deps.OnTick(rec)
		}
		return id, act != nil
	}
	s.log.Warn("record the tick in one transaction; recording its parts one by one", zap.String("channel", rec.ChannelID), zap.Error(err))
	if act != nil {
		if _, err := s.deps.Store.AppendAction(ctx, *act); err != nil {
			s.log.Error("record action", zap.String("channel", rec.ChannelID), zap.Error(err))
		} else {
			actionStored = true
		}
		if err := s.deps.Store.TrimActions(ctx, rec.ChannelID, s.cfg.ActionKeep, s.cfg.ActionOver); err != nil {
			s.log.Error("trim action history", zap.String("channel", rec.ChannelID), zap.Error(err))
		}
	}
	return s.record(ctx, rec), actionStored
}

// typingDelay is how long a model call runs before the channel shows a
// typing indicator.
const typingDelay = 500 * time.Millisecond

// typing shows the channel's typing indicator once the model has worked
// for typingDelay: an answer within it appears about as soon as the
// indicator would. The indicator is a request to the platform of its own,
// sent beside the call rather than before it. stop cancels it when not yet
// sent and otherwise waits for it, so that it never follows the reply; the
// caller gives its model slot back first, so a slow platform holds no slot.
func (s *Scheduler) typing(ctx context.Context, id string) (stop func()) {
	if s.deps.Typing == nil {
		return func() {}
	}
	done := make(chan struct{})
	t := time.AfterFunc(typingDelay, func() {
		defer close(done)
		s.deps.Typing(ctx, id)
	})
	return sync.OnceFunc(func() {
		if !t.Stop() {
			<-done
		}
	})
}

// complete calls the model; the caller holds a model slot. A message arriving
// for the channel cancels the call once per wake (when interrupts are on),
// if it is newer than watermark: a message stored just before the request
// was built signals after it, but the request already shows it.
func (s *Scheduler) complete(ctx context.Context, l *loop, w *wakeState, req planner.Request, watermark int64) (planner.Response, bool, error) {
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		interrupted bool
		wg          sync.WaitGroup
		stop        = make(chan struct{})
	)
	if s.cfg.Interrupt && !w.interrupted {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-l.arrived:
					fresh, err := l.arrivedSince(callCtx, watermark)
					if err != nil || !fresh {
						continue
					}
					interrupted = true
					cancel()
				case <-stop:
				}
				return
			}
		}()
	}
	resp, err := s.deps.Model.Complete(callCtx, req)
	close(stop)
	wg.Wait()
	if interrupted && ctx.Err() == nil && err != nil {
		return resp, true, nil
	}
	return resp, false, err
}

// logSend logs the outcome of a send_message: one line per message sent,
// one per send that did not go out, never the text.
func (s *Scheduler) logSend(channel string, res actions.Result) {
	sent := false
	for _, e := range res.Effects {
		if e.Kind != "send" {
			continue
		}
		sent = true
		outcome := "sent"
		if !res.OK {
			outcome = "partly sent"
		}
		s.log.Info("message sent", zap.String("channel", e.ChannelID), zap.String("outcome", outcome),
			zap.Int("chars", utf8.RuneCountInString(e.Content)), zap.String("message", e.MessageID))
	}
	if sent {
		return
	}
	outcome := "refused"
	switch {
	case res.Aborted:
		outcome = "held back: new messages arrived"
	case res.OK:
		outcome = "silent"
	}
	s.log.Info("message not sent", zap.String("channel", channel), zap.String("outcome", outcome), zap.String("result", firstLine(res.Text, 200)))
}

// firstLine is the first line of s, cut to at most n bytes.
func firstLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// record stores a tick record and returns its id (0 when it could not be stored).
func (s *Scheduler) record(ctx context.Context, rec state.Tick) int64 {
	id, err := s.deps.Store.AddTick(ctx, rec)
	if err != nil {
		s.log.Error("record tick", zap.String("channel", rec.ChannelID), zap.Error(err))
	}
	if s.deps.OnTick != nil {
		s.deps.OnTick(rec)
	}
	return id
}

// request gathers the tick's input, reads the watermark and builds the
// request; on failure it names the step that failed.
func (l *loop) request(ctx context.Context, w *wakeState, now time.Time, rec *state.Tick) (planner.Input, int64, planner.Prompt, planner.Request, string, error) {
	s := l.s
	in, err := s.input(ctx, l.id, w, now, l.carry)
	if err != nil {
		return in, 0, planner.Prompt{}, planner.Request{}, "gather tick input", err
	}
	watermark, err := s.deps.Store.LastMessageID(ctx, l.id)
	if err != nil {
		return in, 0, planner.Prompt{}, planner.Request{}, "read watermark", err
	}
	prompt, err := s.deps.Prompter.Build(ctx, in)
	if err != nil {
		return in, 0, planner.Prompt{}, planner.Request{}, "build prompt", err
	}
	rec.Request = prompt.Messages
	rec.Sections = prompt.Sections
	req := planner.Request{ChannelID: l.id, Messages: prompt.Messages}
	if s.cfg.SendUser {
		req.User = "airi:" + l.id
	}
	return in, watermark, prompt, req, "", nil
}

// shownMessages returns the messages of incoming whose ids are in ids.
func shownMessages(incoming []state.Message, ids []int64) []state.Message {
	want := make(map[int64]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	var out []state.Message
	for _, m := range incoming {
		if want[m.ID] {
			out = append(out, m)
		}
	}
	return out
}

// input gathers what the prompt of one tick shows. carry are messages
// already read that are shown as new again (their previous answer did not
// parse); the unread messages follow, up to the display cap, except those
// of the previous call's read result (w.pending), which that result shows.
// The prompt builder shows as many of them as fit its budget.
func (s *Scheduler) input(ctx context.Context, id string, w *wakeState, now time.Time, carry []state.Message) (planner.Input, error) {
	st := s.deps.Store
	ch, err := st.Channel(ctx, id)
	if err != nil {
		return planner.Input{}, fmt.Errorf("look up channel %q: %w", id, err)
	}
	pending := make(map[int64]bool, len(w.pending))
	pendingBy := map[string]int{}
	for _, m := range w.pending {
		pending[m.ID] = true
		pendingBy[m.ChannelID]++
	}
	limit := max(s.cfg.DisplayCap-len(carry), 1)
	unread, err := st.Unread(ctx, id, limit+pendingBy[id])
	if err != nil {
		return planner.Input{}, fmt.Errorf("read unread: %w", err)
	}
	offered := make([]state.Message, 0, len(unread))
	for _, m := range unread {
		if !pending[m.ID] && len(offered) < limit {
			offered = append(offered, m)
		}
	}
	view, err := s.unreadCounts(ctx, id)
	if err != nil {
		return planner.Input{}, err
	}
	own := view.counts[id]
	if !view.exact {
		own = len(unread)
		if len(unread) >= limit+pendingBy[id] {
			all, err := st.CountUnreadAfter(ctx, id, 0)
			if err != nil {
				return planner.Input{}, fmt.Errorf("count unread: %w", err)
			}
			own = all
		}
	}
	history, total, err := st.History(ctx, id, s.deps.Prompter.HistoryLimit())
	if err != nil {
		return planner.Input{}, fmt.Errorf("read history: %w", err)
	}
	if len(carry) > 0 {
		// A message is never in the history and the new messages at once.
		carried := make(map[int64]bool, len(carry))
		for _, m := range carry {
			carried[m.ID] = true
		}
		kept := history[:0:0]
		for _, m := range history {
			if !carried[m.ID] {
				kept = append(kept, m)
			}
		}
		total -= len(history) - len(kept)
		history = kept
	}
	acts, err := st.Actions(ctx, id, s.cfg.ActionsShown)
	if err != nil {
		return planner.Input{}, fmt.Errorf("read action history: %w", err)
	}
	platform := ch.Platform
	if s.deps.Platform != nil {
		platform = s.deps.Platform(ch)
	}
	// Counts leave out what this request offers as new and what the read
	// result it shows lists.
	unreadOthers := make(map[string]int, len(view.counts)+1)
	for cid, n := range view.counts {
		if cid == id {
			continue
		}
		if n -= pendingBy[cid]; n > 0 {
			unreadOthers[cid] = n
		}
	}
	if n := own - pendingBy[id] - len(offered); n > 0 && s.allowed(id) {
		unreadOthers[id] = n
	}
	// Titles are looked up only for the channels the state message lists.
	listed := planner.UnreadListed(unreadOthers, "")
	chans := make([]state.Channel, 0, len(listed))
	for _, cid := range listed {
		title, err := s.title(ctx, cid)
		if err != nil {
			return planner.Input{}, fmt.Errorf("look up channel %q: %w", cid, err)
		}
		chans = append(chans, state.Channel{ID: cid, Title: title})
	}
	incoming := append(append([]state.Message(nil), carry...), offered...)
	var attn, notice string
	if s.cfg.Attention != nil && ch.Group {
		attn = string(s.attentionFor(ctx, id).Mode)
		if s.budgetLevel(ctx, id, now) >= budget.Fallback {
			notice = "Today's token budget is nearly used up: until the day rolls over you are woken only when addressed."
		}
	}
	return planner.Input{
		Attention:     attn,
		Notice:        notice,
		Platform:      platform,
		BotName:       s.cfg.BotName,
		Language:      s.cfg.Language,
		Channel:       ch,
		History:       history,
		HistoryTotal:  total,
		Incoming:      incoming,
		Remaining:     max(own-len(offered)-pendingBy[id], 0),
		Actions:       acts,
		Wake:          w.id,
		Unread:        unreadOthers,
		UnreadOmitted: view.omitted,
		Channels:      chans,
		Now:           now,
		Shrink:        w.shrink,
	}, nil
}
