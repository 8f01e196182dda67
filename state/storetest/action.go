package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/airi-go/airi/state"
)

func normActions(rs []state.ActionRecord) []state.ActionRecord {
	out := make([]state.ActionRecord, len(rs))
	for i, r := range rs {
		r.Time = r.Time.UTC().Round(0)
		out[i] = r
	}
	return out
}

func appendAction(t *testing.T, s state.Store, r state.ActionRecord) state.ActionRecord {
	t.Helper()
	id, err := s.AppendAction(context.Background(), r)
	if err != nil {
		t.Fatalf("AppendAction: %v", err)
	}
	r.ID = id
	return r
}

func testActions(t *testing.T, s state.Store) {
	ctx := context.Background()
	if _, err := s.AppendAction(ctx, state.ActionRecord{Name: "continue"}); err == nil {
		t.Error("AppendAction without channel: no error")
	}
	var want []state.ActionRecord
	var prev int64
	for i := range 5 {
		r := state.ActionRecord{
			ChannelID: "c1",
			Wake:      int64(i / 2),
			Action:    json.RawMessage(fmt.Sprintf(`{"action":"send_message","content":"n%d"}`, i)),
			Name:      "send_message",
			Reasoning: "because",
			OK:        i%2 == 0,
			Result:    fmt.Sprintf("sent %d", i),
			Time:      at(i),
		}
		if i == 4 {
			r.Action, r.Name, r.Reasoning, r.Result = nil, "", "", "parse error: no JSON"
		}
		r = appendAction(t, s, r)
		if r.ID <= prev {
			t.Errorf("action id %d not after %d", r.ID, prev)
		}
		prev = r.ID
		want = append(want, r)
		appendAction(t, s, state.ActionRecord{ChannelID: "c2", Name: "continue", OK: true, Time: at(i)})
	}
	tests := []struct {
		limit int
		want  []state.ActionRecord
	}{
		{0, want},
		{2, want[3:]},
		{5, want},
		{9, want},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint("limit ", tt.limit), func(t *testing.T) {
			got, err := s.Actions(ctx, "c1", tt.limit)
			if err != nil {
				t.Fatalf("Actions: %v", err)
			}
			equal(t, "Actions (newest limit, oldest first)", normActions(got), normActions(tt.want))
		})
	}
	if got, err := s.Actions(ctx, "none", 10); err != nil || len(got) != 0 {
		t.Errorf("Actions(unknown) = %v, %v", got, err)
	}
}

func testClearActions(t *testing.T, s state.Store) {
	ctx := context.Background()
	for i := range 3 {
		appendAction(t, s, state.ActionRecord{ChannelID: "c1", Name: "continue", Time: at(i)})
		appendAction(t, s, state.ActionRecord{ChannelID: "c2", Name: "continue", Time: at(i)})
	}
	if err := s.ClearActions(ctx, "c1"); err != nil {
		t.Fatalf("ClearActions: %v", err)
	}
	if got, _ := s.Actions(ctx, "c1", 0); len(got) != 0 {
		t.Errorf("c1 after clear: %d records", len(got))
	}
	if got, _ := s.Actions(ctx, "c2", 0); len(got) != 3 {
		t.Errorf("c2 after clearing c1: %d records, want 3", len(got))
	}
	if err := s.ClearActions(ctx, "none"); err != nil {
		t.Errorf("ClearActions(unknown): %v", err)
	}
	// Ids keep increasing after a clear.
	last := appendAction(t, s, state.ActionRecord{ChannelID: "c1", Name: "x"})
	if got, _ := s.Actions(ctx, "c2", 0); last.ID <= got[len(got)-1].ID {
		t.Errorf("id after clear %d not after %d", last.ID, got[len(got)-1].ID)
	}
}

func testTrimActions(t *testing.T, s state.Store) {
	ctx := context.Background()
	// Names are given one letter each: s = send_message, r = read, c = continue.
	names := map[byte]string{'s': "send_message", 'r': "read_unread_messages", 'c': "continue"}
	cases := []struct {
		name       string
		seq        string
		keep, over int
		want       string
	}{
		{"at the bound nothing goes", "rscrsc", 2, 6, "rscrsc"},
		{"under the bound nothing goes", "rsc", 1, 6, "rsc"},
		{"over keeps the newest", "rscrsrsc", 4, 6, "srsc"},
		{"kept part never starts at a continue", "rsrscrsc", 4, 6, "rsc"},
		{"consecutive continues are all dropped", "rsccrscc", 6, 6, "rscc"},
		{"only continues kept: nothing kept", "rscccc", 3, 4, ""},
		{"keep 0 clears", "rsrsrs", 0, 4, ""},
		{"keep above count keeps all", "rsrsrs", 10, 4, "rsrsrs"},
	}
	for i, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			ch := fmt.Sprintf("trim%d", i)
			for j := range len(tt.seq) {
				appendAction(t, s, state.ActionRecord{ChannelID: ch, Name: names[tt.seq[j]], Result: fmt.Sprint(j), Time: at(j)})
			}
			appendAction(t, s, state.ActionRecord{ChannelID: "bystander", Name: "continue"})
			if err := s.TrimActions(ctx, ch, tt.keep, tt.over); err != nil {
				t.Fatalf("TrimActions: %v", err)
			}
			got, err := s.Actions(ctx, ch, 0)
			if err != nil {
				t.Fatalf("Actions: %v", err)
			}
			var seq []byte
			for j, r := range got {
				seq = append(seq, r.Name[0])
				// The kept records are the newest ones, in order.
				if want := fmt.Sprint(len(tt.seq) - len(got) + j); r.Result != want {
					t.Errorf("kept record %d is record %s, want %s", j, r.Result, want)
				}
			}
			if string(seq) != tt.want {
				t.Errorf("kept %q, want %q", seq, tt.want)
			}
			if len(got) > 0 && got[0].Name == "continue" {
				t.Error("kept part starts at a continue")
			}
		})
	}
	if got, _ := s.Actions(ctx, "bystander", 0); len(got) != len(cases) {
		t.Errorf("another channel lost records: %d, want %d", len(got), len(cases))
	}
}
