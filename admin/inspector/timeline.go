package inspector

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/airi-go/airi/state"
)

// itemView is one row of a timeline: a message or a tick.
type itemView struct {
	// Key orders rows the way the timeline does, as a string, so the live
	// script can insert new rows in place.
	Key string
	// NewDay puts a date line above the row.
	NewDay bool
	Time   time.Time
	// Channel is shown on pages that mix channels, with ChannelHref, the
	// channel's timeline from this row back.
	Channel     *state.Channel
	ChannelHref string
	Msg         *state.Message
	Tick        *tickRow
	// Reactions are what a message of the bot carries now, per emoji.
	Reactions []state.ReactionCount
}

// tickRow is what a timeline shows of a tick.
type tickRow struct {
	state.Tick
	Outcome string
	Action  action
	Sent    []effect
	Tools   []effect
}

func sortKey(p state.TimelinePos) string {
	kind := 0
	if p.Tick {
		kind = 1
	}
	return fmt.Sprintf("%020d.%d.%020d", p.Time.UnixNano(), kind, p.ID)
}

// itemViews turns a page of items, newest first, into rows; channels
// names the channels of pages that mix them (nil otherwise).
func itemViews(items []state.TimelineItem, channels map[string]state.Channel) []itemView {
	out := make([]itemView, 0, len(items))
	prevDay := ""
	for _, it := range items {
		v := itemView{Key: sortKey(it.Pos()), Time: it.Pos().Time}
		ch := ""
		switch {
		case it.Message != nil:
			v.Msg, ch = it.Message, it.Message.ChannelID
		case it.Tick != nil:
			row := &tickRow{Tick: *it.Tick, Outcome: it.Tick.Outcome(), Action: parseAction(it.Tick.Action)}
			row.Sent, row.Tools = parseEffects(it.Tick.Effects)
			v.Tick = row
			ch = it.Tick.ChannelID
		}
		if channels != nil {
			c, ok := channels[ch]
			if !ok {
				c = state.Channel{ID: ch}
			}
			v.Channel = &c
			at := it.Pos()
			at.ID++ // just after the row, so the page starts with it
			v.ChannelHref = channelURL(ch) + "?before=" + posParam(at)
		}
		if day := v.Time.UTC().Format(time.DateOnly); day != prevDay {
			v.NewDay, prevDay = true, day
		}
		out = append(out, v)
	}
	return out
}

// countReactions sets on the rows of the bot's own messages the
// reactions they carry now: one query per channel of the page.
func (in *Inspector) countReactions(ctx context.Context, views []itemView) error {
	ids := map[string][]string{}
	for _, v := range views {
		if m := v.Msg; m != nil && m.Self && m.PlatformID != "" {
			ids[m.ChannelID] = append(ids[m.ChannelID], m.PlatformID)
		}
	}
	type key struct{ channel, message string }
	counts := map[key][]state.ReactionCount{}
	for ch, list := range ids {
		cs, err := in.opts.Store.ReactionCounts(ctx, ch, list)
		if err != nil {
			return fmt.Errorf("count reactions in %q: %w", ch, err)
		}
		for _, c := range cs {
			k := key{ch, c.MessageID}
			counts[k] = append(counts[k], c)
		}
	}
	for i := range views {
		if m := views[i].Msg; m != nil && m.Self {
			views[i].Reactions = counts[key{m.ChannelID, m.PlatformID}]
		}
	}
	return nil
}

// timelineView is a page of a timeline: one channel's, or search results.
type timelineView struct {
	Channel state.Channel
	Unread  int
	// Reminders are the channel's pending reminders, the earliest first.
	Reminders []state.Reminder
	Items     []itemView
	Query     string
	Outcome   string
	Notice    string
	Filtered  bool
	// Older is the link to the next page back ("" on the last page);
	// Newest the link back to the first page ("" on it).
	Older, Newest string
	// Live is the poll address of a first page, "" elsewhere.
	Live         string
	LiveInterval int
	LastMessage  int64
	LastTick     int64
}

// watermarks returns the highest message and tick ids of a page.
func watermarks(items []state.TimelineItem) (msg, tick int64) {
	for _, it := range items {
		if it.Message != nil {
			msg = max(msg, it.Message.ID)
		}
		if it.Tick != nil {
			tick = max(tick, it.Tick.ID)
		}
	}
	return msg, tick
}

// filterParams reads the outcome and text filters of a timeline request.
func filterParams(r *http.Request) (outcome, text string) {
	return r.URL.Query().Get("outcome"), strings.TrimSpace(r.URL.Query().Get("q"))
}

// pageLinks sets the older and newest links of a page of items.
func (in *Inspector) pageLinks(v *timelineView, r *http.Request, items []state.TimelineItem, before state.TimelinePos) {
	q := r.URL.Query()
	if len(items) == in.opts.PageSize {
		q.Set("before", posParam(items[len(items)-1].Pos()))
		v.Older = r.URL.Path + "?" + q.Encode()
	}
	if !before.IsZero() {
		q.Del("before")
		v.Newest = r.URL.Path
		if len(q) > 0 {
			v.Newest += "?" + q.Encode()
		}
	}
}

// timeline is a channel's messages and ticks, newest first, paged back.
func (in *Inspector) timeline(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("id")
	ch, err := in.opts.Store.Channel(ctx, id)
	if errors.Is(err, state.ErrNotFound) {
		in.fail(w, r, http.StatusNotFound, fmt.Sprintf("no channel %q", id), nil)
		return
	}
	if err != nil {
		in.fail(w, r, http.StatusInternalServerError, "read channel", err)
		return
	}
	before, err := parsePos(r.URL.Query().Get("before"))
	if err != nil {
		in.fail(w, r, http.StatusBadRequest, err.Error(), nil)
		return
	}
	outcome, text := filterParams(r)
	q := state.TimelineQuery{ChannelID: id, Before: before, Limit: in.opts.PageSize, Outcome: outcome, Text: text}
	if err := q.Validate(); err != nil {
		in.fail(w, r, http.StatusBadRequest, err.Error(), nil)
		return
	}
	items, err := in.opts.Store.Timeline(ctx, q)
	if err != nil {
		in.fail(w, r, http.StatusInternalServerError, "read timeline", err)
		return
	}
	unread, err := in.opts.Store.UnreadCounts(ctx)
	if err != nil {
		in.fail(w, r, http.StatusInternalServerError, "count unread", err)
		return
	}
	reminders, err := in.opts.Store.ListReminders(ctx, state.ReminderFilter{ChannelID: id, Pending: true})
	if err != nil {
		in.fail(w, r, http.StatusInternalServerError, "read reminders", err)
		return
	}
	v := timelineView{Channel: ch, Unread: unread[id], Reminders: reminders, Items: itemViews(items, nil), Query: text, Outcome: outcome,
		Filtered: outcome != "" || text != "", LiveInterval: in.opts.LiveInterval}
	if err := in.countReactions(ctx, v.Items); err != nil {
		in.fail(w, r, http.StatusInternalServerError, "count reactions", err)
		return
	}
	in.pageLinks(&v, r, items, before)
	if before.IsZero() {
		lq := url.Values{"channel": {id}}
		if outcome != "" {
			lq.Set("outcome", outcome)
		}
		if text != "" {
			lq.Set("q", text)
		}
		v.Live = "/live?" + lq.Encode()
		v.LastMessage, v.LastTick = watermarks(items)
	}
	title := ch.Title
	if title == "" {
		title = ch.ID
	}
	in.render(w, r, "timeline", page{Title: title, Nav: "channels", Body: v})
}

// live answers a live timeline's poll: the rows newer than the page has
// (messages above id m, ticks above id t), as an HTML fragment, newest
// first. Ids, not times, mark what the page has: a tick is recorded after
// its model call, so it can arrive later than messages newer than it.
func (in *Inspector) live(w http.ResponseWriter, r *http.Request) {
	qv := r.URL.Query()
	lastMsg, err1 := strconv.ParseInt(qv.Get("m"), 10, 64)
	lastTick, err2 := strconv.ParseInt(qv.Get("t"), 10, 64)
	if err1 != nil || err2 != nil {
		in.fail(w, r, http.StatusBadRequest, "live: m and t must be the last message and tick ids", nil)
		return
	}
	outcome, text := filterParams(r)
	q := state.TimelineQuery{ChannelID: qv.Get("channel"), Limit: state.MaxTimelineLimit, Outcome: outcome, Text: text}
	if err := q.Validate(); err != nil {
		in.fail(w, r, http.StatusBadRequest, err.Error(), nil)
		return
	}
	items, err := in.opts.Store.Timeline(r.Context(), q)
	if err != nil {
		in.fail(w, r, http.StatusInternalServerError, "read timeline", err)
		return
	}
	var fresh []state.TimelineItem
	for _, it := range items {
		if (it.Message != nil && it.Message.ID > lastMsg) || (it.Tick != nil && it.Tick.ID > lastTick) {
			fresh = append(fresh, it)
		}
	}
	m, t := watermarks(fresh)
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Airi-Last-Message", strconv.FormatInt(max(m, lastMsg), 10))
	h.Set("X-Airi-Last-Tick", strconv.FormatInt(max(t, lastTick), 10))
	if len(fresh) == len(items) && len(items) == q.Limit {
		// Everything on the newest page is new: more may lie beyond it.
		h.Set("X-Airi-Gap", "1")
	}
	views := itemViews(fresh, nil)
	for i := range views {
		views[i].NewDay = false
	}
	if err := in.countReactions(r.Context(), views); err != nil {
		in.fail(w, r, http.StatusInternalServerError, "count reactions", err)
		return
	}
	in.renderFragment(w, r, "live", views)
}

// renderFragment executes a template that is not a whole page.
func (in *Inspector) renderFragment(w http.ResponseWriter, r *http.Request, name string, data any) {
	var buf strings.Builder
	if err := in.pages[name].ExecuteTemplate(&buf, name, data); err != nil {
		in.fail(w, r, http.StatusInternalServerError, "render "+name, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(buf.String()))
}

// tickRef is a search for a tick by id: 123 or #123.
var tickRef = regexp.MustCompile(`^#?([0-9]{1,18})$`)

// search finds messages by text, or a tick by id, and lists ticks by
// outcome, in one channel or in all.
func (in *Inspector) search(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	outcome, text := filterParams(r)
	channel := r.URL.Query().Get("channel")
	v := timelineView{Query: text, Outcome: outcome, Filtered: true}
	if channel != "" {
		v.Channel = state.Channel{ID: channel}
	}
	if m := tickRef.FindStringSubmatch(text); m != nil && outcome == "" {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		ticks, err := in.opts.Store.Ticks(ctx, state.TickFilter{ID: id})
		if err != nil {
			in.fail(w, r, http.StatusInternalServerError, "read tick", err)
			return
		}
		if len(ticks) == 1 {
			http.Redirect(w, r, fmt.Sprintf("/ticks/%d", id), http.StatusSeeOther)
			return
		}
		v.Notice = fmt.Sprintf("There is no tick #%d; messages containing %q follow.", id, text)
	}
	if text == "" && outcome == "" {
		in.render(w, r, "search", page{Title: "Search", Nav: "search", Body: v})
		return
	}
	before, err := parsePos(r.URL.Query().Get("before"))
	if err != nil {
		in.fail(w, r, http.StatusBadRequest, err.Error(), nil)
		return
	}
	q := state.TimelineQuery{ChannelID: channel, Before: before, Limit: in.opts.PageSize, Outcome: outcome, Text: text}
	if err := q.Validate(); err != nil {
		v.Notice = "Search by text or filter by outcome, not both at once."
		w.WriteHeader(http.StatusBadRequest)
		in.render(w, r, "search", page{Title: "Search", Nav: "search", Query: text, Outcome: outcome, Body: v})
		return
	}
	items, err := in.opts.Store.Timeline(ctx, q)
	if err != nil {
		in.fail(w, r, http.StatusInternalServerError, "search", err)
		return
	}
	chs, err := in.opts.Store.Channels(ctx)
	if err != nil {
		in.fail(w, r, http.StatusInternalServerError, "list channels", err)
		return
	}
	byID := make(map[string]state.Channel, len(chs))
	for _, c := range chs {
		byID[c.ID] = c
		if c.ID == channel {
			v.Channel = c
		}
	}
	v.Items = itemViews(items, byID)
	if err := in.countReactions(ctx, v.Items); err != nil {
		in.fail(w, r, http.StatusInternalServerError, "count reactions", err)
		return
	}
	in.pageLinks(&v, r, items, before)
	in.render(w, r, "search", page{Title: "Search", Nav: "search", Query: text, Outcome: outcome, Body: v})
}

// ticks keeps the old address of the tick list working: it lists ticks
// by outcome when asked, and otherwise sends the operator to the channels.
func (in *Inspector) ticks(w http.ResponseWriter, r *http.Request) {
	if o := r.URL.Query().Get("outcome"); o != "" {
		http.Redirect(w, r, "/search?outcome="+url.QueryEscape(o), http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
