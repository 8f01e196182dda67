package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/airi-go/airi/state"
)

func normTicks(ts []state.Tick) []state.Tick {
	out := make([]state.Tick, len(ts))
	for i, tk := range ts {
		tk.Now = tk.Now.UTC().Round(0)
		out[i] = tk
	}
	return out
}

func sampleTick(ch string, n int) state.Tick {
	return state.Tick{
		ChannelID: ch,
		Wake:      int64(n),
		Trigger:   "message",
		Now:       at(n),
		Request: []state.ChatMessage{
			{Role: "system", Content: "You are airi."},
			{Role: "user", Content: "Ann: hello \"there\"\n<&>"},
			{Role: "user", Content: "state " + fmt.Sprint(n)},
		},
		Raw:        `{"action":"continue"}`,
		Reasoning:  "nothing to say",
		Usage:      state.Usage{PromptTokens: 1200 + n, CompletionTokens: 30, CachedTokens: 1024},
		LatencyMS:  int64(850 + n),
		Action:     json.RawMessage(`{"action":"continue"}`),
		ModelError: "",
		Notes:      []string{"debounced 3 messages", "re-armed"},
		Result:     "ok",
		OK:         true,
		Effects:    json.RawMessage(`[{"kind":"marked_read","ids":[1,2]}]`),
		Sections: []state.Section{
			{Name: "persona", Order: 10, Source: "embedded:persona.md", Cache: "static", Message: 0, Start: 0, End: 13},
			{Name: "state", Order: 0, Source: "embedded:state.md", Cache: "volatile", Message: 2, Start: 0, End: 7},
		},
	}
}

func testTicks(t *testing.T, s state.Store) {
	ctx := context.Background()
	if ts, err := s.Ticks(ctx, state.TickFilter{}); err != nil || len(ts) != 0 {
		t.Errorf("Ticks on empty = %v, %v", ts, err)
	}
	if _, err := s.AddTick(ctx, state.Tick{Trigger: "message"}); err == nil {
		t.Error("AddTick without channel: no error")
	}
	var all, c1 []state.Tick
	for i := range 6 {
		tk := sampleTick(fmt.Sprint("c", i%2+1), i)
		switch i {
		case 3: // a parse failure
			tk.Action, tk.ParseError, tk.OK, tk.Result = nil, "no JSON object in the answer", false, "parse error"
		case 4: // a failed call
			tk.Raw, tk.Action, tk.ModelError, tk.Notes, tk.Effects, tk.Usage = "", nil, "429 slow down", nil, nil, state.Usage{}
			tk.Sections = nil
		}
		id, err := s.AddTick(ctx, tk)
		if err != nil {
			t.Fatalf("AddTick: %v", err)
		}
		if len(all) > 0 && id <= all[len(all)-1].ID {
			t.Errorf("tick id %d not increasing", id)
		}
		tk.ID = id
		all = append(all, tk)
		if tk.ChannelID == "c1" {
			c1 = append(c1, tk)
		}
	}
	tests := []struct {
		name string
		f    state.TickFilter
		want []state.Tick
	}{
		{"all", state.TickFilter{}, all},
		{"one channel", state.TickFilter{ChannelID: "c1"}, c1},
		{"since is inclusive", state.TickFilter{Since: at(3)}, all[3:]},
		{"channel and since", state.TickFilter{ChannelID: "c1", Since: at(1)}, c1[1:]},
		{"unknown channel", state.TickFilter{ChannelID: "zz"}, nil},
		{"since after all", state.TickFilter{Since: at(100)}, nil},
		{"one id", state.TickFilter{ID: all[2].ID}, all[2:3]},
		{"unknown id", state.TickFilter{ID: all[5].ID + 100}, nil},
		{"newest two, in id order", state.TickFilter{Last: 2}, all[4:]},
		{"newest of a channel", state.TickFilter{ChannelID: "c1", Last: 1}, c1[len(c1)-1:]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Ticks(ctx, tt.f)
			if err != nil {
				t.Fatalf("Ticks: %v", err)
			}
			if len(got) == 0 && len(tt.want) == 0 {
				return
			}
			equal(t, "Ticks", normTicks(got), normTicks(tt.want))
		})
	}
}
