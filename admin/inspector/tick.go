package inspector

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/state"
)

// tickView is everything the tick page shows.
type tickView struct {
	state.Tick
	Channel state.Channel
	Outcome string
	Action  action
	Sent    []effect
	// Tools are the tool calls the action made.
	Tools []effect
	// Prev and Next are the neighbouring ticks of the channel (0: none).
	Prev, Next int64
	Layers     []layerView
	Tokens     int
	// Diff is this request against the previous tick's, as replay prints
	// it; DiffSame says the two requests are identical.
	Diff     []diffLine
	DiffSame bool
	// Images are the hashes of the images the tick looked at or sent.
	Images []string
}

// layerView is one layer of the request: system, history or state.
type layerView struct {
	Kind     string
	Tokens   int
	Open     bool
	Messages []messageView
}

// messageView is one message of the request, cut into its sections.
type messageView struct {
	Index    int
	Role     string
	Tokens   int
	Sections []sectionView
}

// sectionView is one prompt section (or, for text no section claims, a
// part without a name).
type sectionView struct {
	Name, Source, Cache string
	Order               int
	Tokens              int
	Text                string
}

// diffLine is one line of a unified diff with its kind for styling.
type diffLine struct {
	Class, Text string
}

func (in *Inspector) tick(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		in.fail(w, r, http.StatusBadRequest, "a tick id is a positive number", nil)
		return
	}
	t, err := in.loadTick(r, id)
	if err != nil {
		in.fail(w, r, http.StatusInternalServerError, "read tick", err)
		return
	}
	if t == nil {
		in.fail(w, r, http.StatusNotFound, fmt.Sprintf("no tick #%d", id), nil)
		return
	}
	v := tickView{Tick: *t, Outcome: t.Outcome(), Action: parseAction(t.Action)}
	v.Sent, v.Tools = parseEffects(t.Effects)
	v.Channel, err = in.opts.Store.Channel(ctx, t.ChannelID)
	if errors.Is(err, state.ErrNotFound) {
		v.Channel, err = state.Channel{ID: t.ChannelID}, nil
	}
	if err != nil {
		in.fail(w, r, http.StatusInternalServerError, "read channel", err)
		return
	}
	if v.Prev, v.Next, err = in.opts.Store.TickNeighbours(ctx, t.ChannelID, id); err != nil {
		in.fail(w, r, http.StatusInternalServerError, "find neighbouring ticks", err)
		return
	}
	v.Layers, v.Tokens = in.layers(*t)
	v.Images = tickImages(*t)
	if v.Prev != 0 && len(t.Request) > 0 {
		prev, err := in.loadTick(r, v.Prev)
		if err != nil {
			in.fail(w, r, http.StatusInternalServerError, "read previous tick", err)
			return
		}
		if prev != nil && len(prev.Request) > 0 {
			d := replay.RequestDiff(prev.Request, t.Request, fmt.Sprintf("tick %d", prev.ID), fmt.Sprintf("tick %d", id))
			v.Diff, v.DiffSame = diffLines(d), d == ""
		}
	}
	in.render(w, r, "tick", page{Title: fmt.Sprintf("Tick #%d", id), Nav: "channels", Body: v})
}

func (in *Inspector) loadTick(r *http.Request, id int64) (*state.Tick, error) {
	ticks, err := in.opts.Store.Ticks(r.Context(), state.TickFilter{ID: id})
	if err != nil || len(ticks) == 0 {
		return nil, err
	}
	return &ticks[0], nil
}

// diffLines splits a unified diff into styled lines.
func diffLines(d string) []diffLine {
	if d == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
	out := make([]diffLine, len(lines))
	for i, l := range lines {
		class := "ctx"
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			class = "file"
		case strings.HasPrefix(l, "@@"):
			class = "hunk"
		case strings.HasPrefix(l, "+"):
			class = "add"
		case strings.HasPrefix(l, "-"):
			class = "del"
		}
		out[i] = diffLine{Class: class, Text: l}
	}
	return out
}

// layers groups a tick's request into system, history and state, each
// message cut at the recorded section boundaries, with token counts.
func (in *Inspector) layers(t state.Tick) ([]layerView, int) {
	if len(t.Request) == 0 {
		return nil, 0
	}
	tok := in.tokens()
	var out []layerView
	for i, m := range t.Request {
		kind := "history"
		switch {
		case i == 0 && m.Role == "system":
			kind = "system"
		case i == len(t.Request)-1 && m.Role == "user":
			kind = "state"
		}
		mv := messageView{Index: i, Role: m.Role, Tokens: tok.Message(m), Sections: sections(t.Sections, i, m.Content)}
		for j := range mv.Sections {
			mv.Sections[j].Tokens = tok.Count(mv.Sections[j].Text)
		}
		if n := len(out); n > 0 && out[n-1].Kind == kind {
			out[n-1].Messages = append(out[n-1].Messages, mv)
			out[n-1].Tokens += mv.Tokens
			continue
		}
		out = append(out, layerView{Kind: kind, Tokens: mv.Tokens, Open: kind == "state", Messages: []messageView{mv}})
	}
	return out, tok.Request(t.Request)
}

// sections cuts message msg of a request at the spans recorded for it.
// Text between spans that is not blank becomes a part without a name, so
// nothing of the request is hidden.
func sections(all []state.Section, msg int, content string) []sectionView {
	var spans []state.Section
	for _, s := range all {
		if s.Message == msg && s.Start >= 0 && s.Start <= s.End && s.End <= len(content) {
			spans = append(spans, s)
		}
	}
	if len(spans) == 0 {
		return []sectionView{{Text: content}}
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].Start < spans[j].Start })
	var out []sectionView
	gap := func(from, to int) {
		if from < to && strings.TrimSpace(content[from:to]) != "" {
			out = append(out, sectionView{Text: content[from:to]})
		}
	}
	at := 0
	for _, s := range spans {
		if s.Start < at { // overlapping spans: keep the text once
			continue
		}
		gap(at, s.Start)
		out = append(out, sectionView{Name: s.Name, Source: s.Source, Cache: s.Cache, Order: s.Order, Text: content[s.Start:s.End]})
		at = s.End
	}
	gap(at, len(content))
	return out
}
