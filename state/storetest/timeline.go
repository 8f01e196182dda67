package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/airi-go/airi/state"
)

// itemKey names a timeline item for comparisons: m<id> or t<id>.
func itemKey(it state.TimelineItem) string {
	switch {
	case it.Message != nil:
		return fmt.Sprint("m", it.Message.ID)
	case it.Tick != nil:
		return fmt.Sprint("t", it.Tick.ID)
	}
	return "?"
}

func itemKeys(items []state.TimelineItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = itemKey(it)
	}
	return out
}

// page reads a whole timeline page by page, checking that no page is
// larger than the limit, and returns every item in order.
func page(t *testing.T, s state.Store, q state.TimelineQuery) (all []state.TimelineItem, pages int) {
	t.Helper()
	for {
		items, err := s.Timeline(context.Background(), q)
		if err != nil {
			t.Fatalf("Timeline(%+v): %v", q, err)
		}
		if len(items) > q.Limit {
			t.Fatalf("Timeline page of %d items, limit %d", len(items), q.Limit)
		}
		if len(items) == 0 {
			return all, pages
		}
		pages++
		all = append(all, items...)
		q.Before = items[len(items)-1].Pos()
		if pages > 100000 {
			t.Fatal("Timeline never ends")
		}
	}
}

// timelineTick is a tick of the given outcome at time n.
func timelineTick(ch string, n int, outcome string) state.Tick {
	tk := sampleTick(ch, n)
	switch outcome {
	case state.OutcomeSent:
		tk.Action = json.RawMessage(`{"action":"send_message","channelId":"` + ch + `","content":"hi"}`)
		tk.Effects = json.RawMessage(`[{"kind":"send","channelId":"` + ch + `","content":"hi","messageId":"42"}]`)
	case state.OutcomeSilent:
		tk.Effects = nil
	case state.OutcomeParseError:
		tk.Action, tk.ParseError, tk.OK, tk.Effects = nil, "no JSON object in the answer", false, nil
	case state.OutcomeModelError:
		tk.Action, tk.ModelError, tk.Effects = nil, "429 slow down", nil
	}
	return tk
}

func testTimeline(t *testing.T, s state.Store) {
	ctx := context.Background()
	// Two channels; messages and ticks interleaved, with ties in time
	// between a message and a tick and between two messages.
	type event struct {
		ch      string
		n       int
		tick    string // an outcome, or "" for a message
		content string
	}
	events := []event{
		{"c1", 0, "", "Hello there"},
		{"c2", 0, "", "other channel"},
		{"c1", 1, state.OutcomeSent, ""},
		{"c1", 2, "", "100% sure"},
		{"c1", 2, "", "1000 sure_ly"},
		{"c1", 2, state.OutcomeSilent, ""},
		{"c1", 3, state.OutcomeParseError, ""},
		{"c2", 3, state.OutcomeModelError, ""},
		{"c1", 4, "", "HELLO again"},
		{"c1", 5, state.OutcomeModelError, ""},
		{"c1", 4, state.OutcomeSent, ""}, // recorded later than its time
	}
	var c1 []state.TimelineItem
	byKey := map[string]state.TimelineItem{}
	for i, e := range events {
		var it state.TimelineItem
		if e.tick == "" {
			m := msg(e.ch, fmt.Sprint("p", i), e.n)
			m.Content = e.content
			got := ingest(t, s, m)
			it.Message = &got
		} else {
			tk := timelineTick(e.ch, e.n, e.tick)
			if tk.Outcome() != e.tick {
				t.Fatalf("sample tick %d: Outcome() = %q, want %q", i, tk.Outcome(), e.tick)
			}
			id, err := s.AddTick(ctx, tk)
			if err != nil {
				t.Fatalf("AddTick: %v", err)
			}
			tk.ID = id
			it.Tick = &tk
		}
		byKey[itemKey(it)] = it
		if e.ch == "c1" {
			c1 = append(c1, it)
		}
	}
	newestFirst := func(items []state.TimelineItem) []string {
		items = append([]state.TimelineItem(nil), items...)
		sort.Slice(items, func(i, j int) bool { return items[j].Pos().Before(items[i].Pos()) })
		return itemKeys(items)
	}
	want := newestFirst(c1)

	t.Run("pages", func(t *testing.T) {
		for _, limit := range []int{1, 2, 3, len(c1), 50} {
			all, pages := page(t, s, state.TimelineQuery{ChannelID: "c1", Limit: limit})
			equal(t, fmt.Sprintf("timeline by %d", limit), itemKeys(all), want)
			if wantPages := (len(c1) + limit - 1) / limit; pages != wantPages {
				t.Errorf("limit %d: %d pages, want %d", limit, pages, wantPages)
			}
		}
	})
	t.Run("items", func(t *testing.T) {
		items, err := s.Timeline(ctx, state.TimelineQuery{ChannelID: "c1", Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			w := byKey[itemKey(it)]
			switch {
			case it.Message != nil:
				equal(t, "timeline message", normMsg(*it.Message), normMsg(*w.Message))
			case it.Tick != nil:
				tk := *w.Tick
				tk.Request, tk.Sections = nil, nil // left out of timelines
				equal(t, "timeline tick", normTicks([]state.Tick{*it.Tick}), normTicks([]state.Tick{tk}))
			}
		}
	})
	t.Run("outcomes", func(t *testing.T) {
		for _, o := range state.Outcomes() {
			for _, ch := range []string{"c1", ""} {
				var wantKeys []state.TimelineItem
				for _, it := range byKey {
					if it.Tick != nil && it.Tick.Outcome() == o && (ch == "" || it.Tick.ChannelID == ch) {
						wantKeys = append(wantKeys, it)
					}
				}
				all, _ := page(t, s, state.TimelineQuery{ChannelID: ch, Outcome: o, Limit: 1})
				equal(t, fmt.Sprintf("outcome %s in %q", o, ch), itemKeys(all), newestFirst(wantKeys))
			}
		}
	})
	t.Run("text", func(t *testing.T) {
		find := func(items []state.TimelineItem) []string {
			var out []string
			for _, it := range items {
				out = append(out, it.Message.Content)
			}
			return out
		}
		tests := []struct {
			ch, text string
			want     []string
		}{
			{"c1", "hello", []string{"HELLO again", "Hello there"}},
			{"", "e", []string{"HELLO again", "1000 sure_ly", "100% sure", "other channel", "Hello there"}},
			{"", "100%", []string{"100% sure"}},
			{"", "e_l", []string{"1000 sure_ly"}},
			{"c2", "hello", nil},
		}
		for _, tt := range tests {
			all, _ := page(t, s, state.TimelineQuery{ChannelID: tt.ch, Text: tt.text, Limit: 2})
			equal(t, fmt.Sprintf("text %q in %q", tt.text, tt.ch), find(all), tt.want)
		}
	})
	t.Run("invalid", func(t *testing.T) {
		for _, q := range []state.TimelineQuery{
			{ChannelID: "c1"},
			{ChannelID: "c1", Limit: state.MaxTimelineLimit + 1},
			{Limit: 10},
			{ChannelID: "c1", Limit: 10, Outcome: "exploded"},
			{ChannelID: "c1", Limit: 10, Outcome: state.OutcomeSent, Text: "x"},
		} {
			if _, err := s.Timeline(ctx, q); err == nil {
				t.Errorf("Timeline(%+v): no error", q)
			}
		}
	})
}

// testTimelineLarge pages through a channel of many ticks: every page is
// one limit long and the pages cover every tick once, newest first.
func testTimelineLarge(t *testing.T, s state.Store) {
	ctx := context.Background()
	const n, limit = 10000, 100
	// Several writers, so that an engine with group commit seeds quickly;
	// ids then do not follow times, which the timeline does not need.
	const writers = 8
	var g errgroup.Group
	for w := range writers {
		g.Go(func() error {
			tk := timelineTick("big", 0, state.OutcomeSilent)
			for i := w; i < n; i += writers {
				tk.Now = at(0).Add(time.Duration(i/3) * time.Second) // three ticks a second
				if _, err := s.AddTick(ctx, tk); err != nil {
					return fmt.Errorf("AddTick %d: %w", i, err)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	first, err := s.Timeline(ctx, state.TimelineQuery{ChannelID: "big", Limit: limit})
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != limit {
		t.Fatalf("first page: %d items, want %d", len(first), limit)
	}
	all, pages := page(t, s, state.TimelineQuery{ChannelID: "big", Limit: limit})
	if len(all) != n || pages != n/limit {
		t.Fatalf("paged %d ticks in %d pages, want %d in %d", len(all), pages, n, n/limit)
	}
	seen := map[int64]bool{}
	for i, it := range all {
		if seen[it.Tick.ID] {
			t.Fatalf("tick %d on two pages", it.Tick.ID)
		}
		seen[it.Tick.ID] = true
		if i > 0 && !it.Pos().Before(all[i-1].Pos()) {
			t.Fatalf("item %d not older than the one before", i)
		}
	}
}

func testTickNeighbours(t *testing.T, s state.Store) {
	ctx := context.Background()
	var c1 []int64
	for i := range 5 {
		id, err := s.AddTick(ctx, sampleTick(fmt.Sprint("c", i%2+1), i))
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			c1 = append(c1, id)
		}
	}
	tests := []struct {
		name       string
		ch         string
		id         int64
		prev, next int64
	}{
		{"first", "c1", c1[0], 0, c1[1]},
		{"middle", "c1", c1[1], c1[0], c1[2]},
		{"last", "c1", c1[2], c1[1], 0},
		{"unknown channel", "zz", c1[1], 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prev, next, err := s.TickNeighbours(ctx, tt.ch, tt.id)
			if err != nil || prev != tt.prev || next != tt.next {
				t.Errorf("TickNeighbours = %d, %d, %v; want %d, %d", prev, next, err, tt.prev, tt.next)
			}
		})
	}
}

func testChannelActivity(t *testing.T, s state.Store) {
	ctx := context.Background()
	for _, ch := range []state.Channel{{ID: "a", Platform: "console"}, {ID: "b", Platform: "telegram", Group: true}, {ID: "c", Platform: "telegram"}} {
		if err := s.UpsertChannel(ctx, ch); err != nil {
			t.Fatal(err)
		}
	}
	ingest(t, s, msg("a", "p1", 1))
	ingest(t, s, msg("a", "p2", 7))
	ingest(t, s, msg("a", "p3", 3)) // arrived last, sent earlier
	ingest(t, s, msg("b", "p1", 2))
	if _, err := s.AddTick(ctx, timelineTick("a", 4, state.OutcomeSent)); err != nil {
		t.Fatal(err)
	}
	id2, err := s.AddTick(ctx, timelineTick("a", 5, state.OutcomeParseError))
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.ChannelActivity(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i].LastMessage = got[i].LastMessage.UTC().Round(0)
		got[i].LastTick = got[i].LastTick.UTC().Round(0)
	}
	equal(t, "ChannelActivity", got, []state.ChannelActivity{
		{ChannelID: "a", LastMessage: at(7), LastTickID: id2, LastTick: at(5), LastOutcome: state.OutcomeParseError},
		{ChannelID: "b", LastMessage: at(2)},
		{ChannelID: "c"},
	})
}
