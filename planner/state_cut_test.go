package planner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/airi-go/airi/internal/tokens"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/state"
)

// TestStateCutsLongActionText: an action of the current wake with a long
// text comes back cut with a marker, never whole, so that a refused send
// of 100 KB does not blow every later request of the wake over its budget.
func TestStateCutsLongActionText(t *testing.T) {
	huge := strings.Repeat("All the details, once more. ", 3572)[:100000]
	send := func(content string) json.RawMessage {
		b, err := json.Marshal(map[string]string{"action": "send_message", "channelId": "-1001234567890", "content": content})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name string
		rec  state.ActionRecord
		// shown is the action as the state message must show it.
		shown string
	}{
		{
			name:  "refused send of 100 KB",
			rec:   state.ActionRecord{Name: "send_message", OK: false, Action: send(huge), Result: "not sent: 100000 characters, at most 4000"},
			shown: string(send(prompts.Cut(huge, prompts.MaxHistoryRunes))),
		},
		{
			name:  "short refused send as it was",
			rec:   state.ActionRecord{Name: "send_message", OK: false, Action: json.RawMessage(`{"channelId":"-1001234567890","action":"send_message","content":"<b>hi</b>"}`), Result: "failed"},
			shown: `{"channelId":"-1001234567890","action":"send_message","content":"<b>hi</b>"}`,
		},
		{
			name:  "delivered send of 6,000 characters",
			rec:   state.ActionRecord{Name: "send_message", OK: true, Action: send(huge[:6000]), Result: `sent to "-1001234567890"`},
			shown: string(send(prompts.Cut(huge[:6000], prompts.MaxMessageRunes))),
		},
	}
	b := newTestBuilder(t, "", BuilderOptions{})
	enc := tokens.New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := fixture("telegram", true)
			tt.rec.Wake = in.Wake
			in.Actions = []state.ActionRecord{tt.rec, tt.rec}
			got := stateMessage(t, b, in)
			if n := strings.Count(got, "- "+tt.shown+"\n"); n != 2 {
				t.Errorf("the action is shown %d times as %.200s…, want twice; state:\n%.3000s", n, tt.shown, got)
			}
			if n := enc.Count(got); n > DefaultMaxTokens/2 {
				t.Errorf("state message of %d tokens", n)
			}
		})
	}
}
