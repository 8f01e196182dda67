package scheduler

import (
	"context"
	"fmt"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state"
)

// maxReactionsShown bounds the reactions one state message shows; the
// rest wait for the next request.
const maxReactionsShown = 10

// build gathers the tick's input, reads the watermark and builds the
// request.
func (t *tick) build(ctx context.Context) error {
	l, s := t.l, t.l.s
	in, err := t.input(ctx)
	if err != nil {
		return &stepError{stepInput, err}
	}
	watermark, err := s.deps.Store.LastMessageID(ctx, l.id)
	if err != nil {
		return &stepError{stepWatermark, err}
	}
	prompt, err := s.deps.Prompter.Build(ctx, in)
	if err != nil {
		return &stepError{stepBuild, err}
	}
	t.incoming, t.shown, t.tokens, t.watermark = in.Incoming, prompt.Shown, prompt.Tokens, watermark
	t.reactions = t.reactions[:0]
	for _, r := range in.Reactions {
		t.reactions = append(t.reactions, r.ID)
	}
	t.rec.Request = prompt.Messages
	t.rec.Sections = prompt.Sections
	t.req = planner.Request{ChannelID: l.id, Messages: prompt.Messages}
	if s.cfg.SendUser {
		t.req.User = "airi:" + l.id
	}
	return nil
}

// input gathers what the prompt of the tick shows. The loop's carry are
// messages already read that are shown as new again (their previous
// answer did not parse); the unread messages follow, up to the display
// cap, except those of the previous call's read result (w.pending), which
// that result shows. The prompt builder shows as many of them as fit its
// budget.
func (t *tick) input(ctx context.Context) (planner.Input, error) {
	s, id, w, now, carry := t.l.s, t.l.id, t.w, t.now, t.l.carry
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
	reactions, err := st.NewReactions(ctx, id, maxReactionsShown)
	if err != nil {
		return planner.Input{}, fmt.Errorf("read reactions: %w", err)
	}
	var images map[string]state.Image
	if s.deps.Media != nil {
		all := make([]state.Message, 0, len(history)+len(incoming))
		all = append(append(all, history...), incoming...)
		res, err := s.deps.Media.Prepare(ctx, id, all)
		if err != nil {
			return planner.Input{}, fmt.Errorf("prepare attachments: %w", err)
		}
		history, incoming, images = res.Messages[:len(history)], res.Messages[len(history):], res.Images
		t.rec.Notes = append(t.rec.Notes, res.Notes...)
	}
	var attn, notice string
	if s.cfg.Attention != nil && ch.Group {
		attn = string(s.attentionFor(ctx, id).Mode)
		if s.budgetLevel(ctx, id, now) >= budget.Fallback {
			notice = "Today's token budget is nearly used up: until the day rolls over you are woken only when addressed."
		}
	}
	t.changes = t.l.changeNotes()
	notice = withChanges(notice, t.changes)
	return planner.Input{
		Attention:     attn,
		Notice:        notice,
		Platform:      platform,
		BotName:       s.botName(),
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
		Reactions:     reactions,
		Images:        images,
	}, nil
}
