package main

import (
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
