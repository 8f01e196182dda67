package planner

import (
	"strings"
	"testing"

	"github.com/airi-go/airi/state"
)

// TestStateOtherBotsAnswers: a person's new message shows what other bots
// answered to it, by reply or by arriving after it, and nothing else.
func TestStateOtherBotsAnswers(t *testing.T) {
	ask := state.Message{ID: 120, PlatformID: "5020", SenderName: "Ada", Content: "@Juni @Echo where do we meet?", Mentioned: true}
	echo := func(id int64, replyTo, text string) state.Message {
		return state.Message{ID: id, PlatformID: "50" + text[:2], SenderName: "Echo", FromBot: true, ReplyTo: replyTo, Content: text}
	}
	bo := state.Message{ID: 122, PlatformID: "5022", SenderName: "Bo", Content: "and when?"}
	const line = "  Already answered by other bots: "
	tests := []struct {
		name     string
		incoming []state.Message
		history  []state.Message
		want     []string // lines in the state message
		not      []string
	}{
		{"no bot answered", []state.Message{ask, bo}, nil, nil, []string{"Already answered"}},
		{"reply to the message", []state.Message{ask, bo, echo(123, "5020", "at the pier")},
			nil, []string{`"@Juni @Echo where do we meet?"` + "\n" + line + `Echo: "at the pier"` + "\n- id 5022"}, nil},
		{"after it, before the next person", []state.Message{ask, echo(121, "", "at the pier"), bo},
			nil, []string{line + `Echo: "at the pier"` + "\n- id 50at"}, []string{`"and when?"` + "\n" + line}},
		{"reply in the history", []state.Message{ask}, []state.Message{echo(119, "5020", "at the pier")},
			[]string{line + `Echo: "at the pier"`}, nil},
		{"reply to another message", []state.Message{ask, echo(121, "4999", "at the pier")}, nil,
			nil, []string{"Already answered"}},
		{"a bot's message answers nothing", []state.Message{echo(119, "", "hello all"), ask}, nil,
			nil, []string{"Already answered"}},
		{"several bots, text cut", []state.Message{ask, echo(121, "", "at the pier"),
			{ID: 122, PlatformID: "5022", SenderName: "Bolt", FromBot: true, Content: strings.Repeat("very long ", 30)}}, nil,
			[]string{line + `Echo: "at the pier"; Bolt: "very long very`, `…"` + "\n"}, nil},
	}
	b := newTestBuilder(t, "", BuilderOptions{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := fixture("telegram", true)
			in.Incoming = tt.incoming
			in.History = append(in.History, tt.history...)
			in.HistoryTotal = len(in.History)
			got := stateMessage(t, b, in)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("state message lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("state message has %q:\n%s", n, got)
				}
			}
		})
	}
}
