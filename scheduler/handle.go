package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/parse"
	"github.com/airi-go/airi/state"
)

// handle handles the model's answer to the request: it marks what the
// request showed read, parses the answer and runs its action, leaving
// what the action did in t.out and its record in t.act.
func (t *tick) handle(ctx context.Context) error {
	l, s, w, rec := t.l, t.l.s, t.w, &t.rec

	// Read means seen: the model has answered a request that showed these
	// messages, the new ones in the state message and those of the
	// previous call's read result.
	shown := shownMessages(t.incoming, t.shown)
	ids := make([]int64, 0, len(shown)+len(w.pending))
	for _, m := range shown {
		ids = append(ids, m.ID)
	}
	for _, m := range w.pending {
		ids = append(ids, m.ID)
	}
	if len(ids) > 0 {
		if err := s.deps.Store.MarkRead(ctx, ids); err != nil {
			return &stepError{stepMarkRead, err}
		}
	}
	if len(t.reactions) > 0 {
		if err := s.deps.Store.MarkReactionsShown(ctx, t.reactions); err != nil {
			return &stepError{stepMarkRead, err}
		}
	}
	seen := shown
	for _, m := range w.pending {
		if m.ChannelID == l.id {
			seen = append(seen, m)
		}
	}
	w.pending = nil
	l.changesShown(t.changes)
	if s.cfg.Attention != nil {
		l.called(t.now, seen)
	}
	out := &t.out
	*out = tickOutcome{delivered: len(shown), watermark: t.watermark}

	actRec := &t.act
	*actRec = state.ActionRecord{ChannelID: l.id, Wake: w.id, Time: t.now}
	content := t.resp.Content
	parsed, perr := s.parseAnswer(t.resp)
	if perr != nil {
		kind := parse.KindNoAction
		if pe := (*parse.Error)(nil); errors.As(perr, &pe) {
			kind = pe.Kind()
		}
		s.log.Info("answer did not parse; the model is told why", s.chat(l.id), zap.String("kind", kind), zap.Int("chars", len(content)))
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
		parsed.Action = actions.InChannel(parsed.Action, l.id)
		rec.Notes = append(rec.Notes, parsed.Notes...)
		raw, err := json.Marshal(parsed.Action)
		if err != nil {
			return &stepError{stepEncode, err}
		}
		rec.Action, actRec.Action = raw, raw
		actRec.Name, actRec.Reasoning = parsed.Action.Name, parsed.Reasoning
		if res, held := t.holdDeleted(parsed.Action, shown); held {
			out.res = res
		} else if res, held := t.holdForBots(ctx, parsed.Action); held {
			out.res = res
		} else {
			out.res = s.deps.Dispatcher.Dispatch(ctx, actions.Call{
				Channel: l.id, Action: parsed.Action, Watermark: t.watermark, MayAbort: !w.aborted,
			})
		}
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
				s.loopFor(e.ChannelID).spoke(t.now)
			}
		}
	}
	if len(out.res.Effects) > 0 {
		if eff, err := json.Marshal(out.res.Effects); err == nil {
			rec.Effects = eff
		}
	}
	return nil
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
		s.log.Info("message sent", s.chat(e.ChannelID), zap.String("outcome", outcome),
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
	s.log.Info("message not sent", s.chat(channel), zap.String("outcome", outcome), zap.String("result", firstLine(res.Text, 200)))
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

// parseAnswer parses the model's answer, telling the parser how it ended
// when it can be told.
func (s *Scheduler) parseAnswer(resp planner.Response) (parse.Result, error) {
	if p, ok := s.deps.Parser.(EndedParser); ok {
		return p.ParseEnded(resp.Content, parse.FinishOf(resp.FinishReason, resp.Ended))
	}
	return s.deps.Parser.Parse(resp.Content)
}
