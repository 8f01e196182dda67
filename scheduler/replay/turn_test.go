package replay_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/scheduler/replay"
)

// The header names the turn semantics a session ran under; a session
// without it ran under the earlier continue semantics and replays under
// them.
func TestHeaderTurnSemantics(t *testing.T) {
	tests := []struct {
		file string
		want scheduler.Turn
	}{
		{"direct-chat.jsonl", scheduler.TurnSendEnds},
		{"group-burst.jsonl", scheduler.TurnSendEnds},
		{"aborted-send.jsonl", scheduler.TurnContinue},
		{"malformed-answers.jsonl", scheduler.TurnContinue},
		{"outages.jsonl", scheduler.TurnContinue},
		{"sleep-woken.jsonl", scheduler.TurnContinue},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			s := readSession(t, tc.file)
			if got := s.Header.TurnSemantics(); got != tc.want {
				t.Errorf("turn semantics %q, want %q", got, tc.want)
			}
			var b bytes.Buffer
			if err := replay.Write(&b, s); err != nil {
				t.Fatal(err)
			}
			header, _, _ := strings.Cut(b.String(), "\n")
			if has := strings.Contains(header, `"turn":`); has != (tc.want == scheduler.TurnSendEnds) {
				t.Errorf("written header %s: a turn key only for send-ends", header)
			}
		})
	}
}

// A session replays only under the semantics it was recorded with: the
// header is what keeps older sessions replaying as they were recorded.
func TestTurnSemanticsDecideTheReplay(t *testing.T) {
	tests := []struct {
		name, file, turn string
		what             string
	}{
		// Recorded with send, continue per reply: under send-ends the send
		// ends the wake and the recorded continue is never asked for.
		{"older session under send-ends", "aborted-send.jsonl", "send-ends", "missing tick"},
		// Recorded with one call per reply: under continue the wake asks
		// for a call the recording does not have.
		{"new session under continue", "group-burst.jsonl", "", "extra tick"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := readSession(t, tc.file)
			rep, err := replay.Play(context.Background(), s, opener(t, ""), replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Divergence != nil {
				t.Fatalf("as recorded: %s", rep.Divergence)
			}
			s.Header.Turn = tc.turn
			rep, err = replay.Play(context.Background(), s, opener(t, ""), replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Divergence == nil || rep.Divergence.What != tc.what {
				t.Fatalf("under %q: divergence %v, want %s", s.Header.TurnSemantics(), rep.Divergence, tc.what)
			}
		})
	}
}

func TestReadRefusesUnknownTurn(t *testing.T) {
	in := `{"airi_session":1,"channel":{"id":"c","platform":"console"},"platform":"console","turn":"sometimes","settings":{"interrupt":true}}` + "\n"
	_, err := replay.Read(strings.NewReader(in))
	if err == nil || !strings.Contains(err.Error(), `line 1: header: unknown turn semantics "sometimes"`) || !strings.Contains(err.Error(), `"send-ends"`) {
		t.Fatalf("err = %v", err)
	}
}
