package main

import (
	"strings"
	"testing"

	"github.com/airi-go/airi/planner/openai/openaitest"
)

// TestChatOneCallPerReply types a 30-message conversation into airi chat
// one message at a time, each after the reply to the previous one, with a
// model that sends a plain send_message for whatever is new and continue
// otherwise: a send ends the turn, so the conversation costs at most 1.15
// model calls per message, and every message is answered once.
func TestChatOneCallPerReply(t *testing.T) {
	out := newLineWriter()
	srv := openaitest.NewServer(t, ackModel(out.printed, nil))
	msgs := conversation(30)
	code, errOut := runChat(t, srv, out, nil, msgs)
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	checkAnsweredOnce(t, srv, out.printed(), msgs)
	calls := len(srv.Requests())
	perMessage := float64(calls) / float64(len(msgs))
	t.Logf("%d messages, %d model calls (%.2f per message)", len(msgs), calls, perMessage)
	if perMessage > 1.15 {
		t.Errorf("%.2f model calls per user message, want at most 1.15", perMessage)
	}
}

// TestParseThen: airi parse keeps what follows a send, in the flat, the
// wrapped and the tool-call form, and refuses a value it does not know.
func TestParseThen(t *testing.T) {
	tests := []struct {
		name, in string
		code     int
		want     string
	}{
		{"flat", `{"action":"send_message","channelId":"1","content":"hi","then":"next"}`, exitOK,
			`{"action":{"action":"send_message","channelId":"1","content":"hi","then":"next"}}`},
		{"wrapped", `{"action":"send_message","parameters":{"channelId":"1","content":"hi","then":"end"},"reasoning":"done"}`, exitOK,
			`{"action":{"action":"send_message","channelId":"1","content":"hi","then":"end"},"reasoning":"done"}`},
		{"tool call", `{"name":"send_message","arguments":"{\"channelId\":\"1\",\"content\":\"hi\",\"then\":\"next\"}"}`, exitOK,
			`{"action":{"action":"send_message","channelId":"1","content":"hi","then":"next"}}`},
		{"unknown value", `{"action":"send_message","channelId":"1","content":"hi","then":"later"}`, exitFailure, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCommandIn(t, tc.in, nil, "parse")
			if code != tc.code || strings.TrimSpace(out) != tc.want {
				t.Errorf("exit %d, stdout %s, stderr %s; want exit %d, %s", code, out, errOut, tc.code, tc.want)
			}
			if tc.code == exitFailure && !strings.Contains(errOut, "then must be one of") {
				t.Errorf("stderr %q does not say what then takes", errOut)
			}
		})
	}
}
