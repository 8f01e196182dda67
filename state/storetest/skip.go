package storetest

import (
	"context"
	"testing"

	"github.com/airi-go/airi/state"
)

func testDecisions(t *testing.T, s state.Store) {
	ctx := context.Background()
	in := msg("c1", "p1", 1)
	in.Decision = "addressed:mention" // a caller that knows it at arrival
	a := ingest(t, s, in)
	b := ingest(t, s, msg("c1", "p2", 2))
	c := ingest(t, s, msg("c1", "p3", 3))
	d := ingest(t, s, msg("c2", "p4", 4))
	if a.Decision != "addressed:mention" || b.Decision != "" {
		t.Errorf("Ingest decisions = %q, %q; want addressed:mention and none", a.Decision, b.Decision)
	}
	steps := []struct {
		ids      []int64
		decision string
	}{
		{[]int64{b.ID}, "unaddressed"},
		{[]int64{c.ID, d.ID, 1 << 40}, "cooldown"}, // an unknown id is ignored
		{[]int64{d.ID}, "budget"},                  // a later decision replaces one
		{nil, "bot"},
	}
	for _, st := range steps {
		if err := s.SetDecision(ctx, st.ids, st.decision); err != nil {
			t.Fatalf("SetDecision(%v, %q): %v", st.ids, st.decision, err)
		}
	}
	want := map[int64]string{a.ID: "addressed:mention", b.ID: "unaddressed", c.ID: "cooldown", d.ID: "budget"}
	if err := s.MarkRead(ctx, []int64{a.ID}); err != nil {
		t.Fatal(err)
	}
	unread1, err := s.Unread(ctx, "c1", 0)
	if err != nil {
		t.Fatal(err)
	}
	unread2, err := s.Unread(ctx, "c2", 0)
	if err != nil {
		t.Fatal(err)
	}
	hist, _, err := s.History(ctx, "c1", 0)
	if err != nil {
		t.Fatal(err)
	}
	events, err := s.Events(ctx, state.TickFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for what, ms := range map[string][]state.Message{
		"unread": append(unread1, unread2...), "history": hist, "events": events,
	} {
		for _, m := range ms {
			if m.Decision != want[m.ID] {
				t.Errorf("%s: message %d decision = %q, want %q", what, m.ID, m.Decision, want[m.ID])
			}
		}
	}
	if len(events) != 4 || len(hist) != 1 {
		t.Errorf("read back %d events and %d history messages; want 4 and 1", len(events), len(hist))
	}
	// A duplicate keeps the stored decision whatever the caller says.
	dup := msg("c1", "p2", 2)
	dup.Decision = "direct"
	got, isNew, err := s.Ingest(ctx, dup)
	if err != nil || isNew || got.Decision != "unaddressed" {
		t.Errorf("Ingest(duplicate) = %q, new %v, %v; want the stored unaddressed", got.Decision, isNew, err)
	}
}

func testSkippedWakes(t *testing.T, s state.Store) {
	ctx := context.Background()
	if ws, err := s.SkippedWakes(ctx, state.TickFilter{}); err != nil || len(ws) != 0 {
		t.Errorf("SkippedWakes on empty = %v, %v; want none", ws, err)
	}
	var all []state.SkippedWake
	for i, w := range []state.SkippedWake{
		{ChannelID: "c1", Trigger: "addressed:mention", Reason: "budget", Time: at(1)},
		{ChannelID: "c2", Trigger: "sleep", Reason: "budget", Time: at(2)},
		{ChannelID: "c1", Trigger: "budget-resume", Reason: "budget", Time: at(3)},
	} {
		id, err := s.AddSkippedWake(ctx, w)
		if err != nil {
			t.Fatalf("AddSkippedWake %d: %v", i, err)
		}
		if len(all) > 0 && id <= all[len(all)-1].ID {
			t.Errorf("skipped wake %d: id %d not after %d", i, id, all[len(all)-1].ID)
		}
		w.ID = id
		all = append(all, w)
	}
	tests := []struct {
		name string
		f    state.TickFilter
		want []state.SkippedWake
	}{
		{"all", state.TickFilter{}, all},
		{"one channel", state.TickFilter{ChannelID: "c1"}, []state.SkippedWake{all[0], all[2]}},
		{"since is inclusive", state.TickFilter{Since: at(2)}, all[1:]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.SkippedWakes(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				got[i].Time = got[i].Time.UTC().Round(0)
			}
			equal(t, "skipped wakes", got, tt.want)
		})
	}
	for _, bad := range []state.SkippedWake{{Reason: "budget"}, {ChannelID: "c1"}} {
		if _, err := s.AddSkippedWake(ctx, bad); err == nil {
			t.Errorf("AddSkippedWake(%+v) = nil error; want a refusal", bad)
		}
	}
	if got, _ := s.SkippedWakes(ctx, state.TickFilter{}); len(got) != len(all) {
		t.Errorf("after refused records: %d skipped wakes, want %d", len(got), len(all))
	}
}
