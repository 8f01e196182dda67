package console

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/state"
)

type inbox struct{ msgs []state.Message }

func (i *inbox) Deliver(_ context.Context, ch state.Channel, m state.Message) error {
	if ch.ID != m.ChannelID {
		panic("channel mismatch")
	}
	i.msgs = append(i.msgs, m)
	return nil
}

func TestRunDeliversLines(t *testing.T) {
	in := strings.NewReader("hello\n\n  \nhello\r\nsecond line\n")
	a := New(Config{ChannelID: "c1", User: "ann", BotName: "Bot"}, in, &bytes.Buffer{}, zaptest.NewLogger(t))
	var box inbox
	if err := a.Run(context.Background(), &box); err != nil {
		t.Fatal(err)
	}
	if len(box.msgs) != 3 {
		t.Fatalf("delivered %d messages, want 3: %+v", len(box.msgs), box.msgs)
	}
	if box.msgs[0].PlatformID == box.msgs[1].PlatformID {
		t.Errorf("same text typed twice got the same id %q", box.msgs[0].PlatformID)
	}
	for _, m := range box.msgs {
		if m.ChannelID != "c1" || m.SenderName != "ann" || !strings.HasPrefix(m.PlatformID, "console-") {
			t.Errorf("bad message %+v", m)
		}
	}
	if box.msgs[1].Content != "hello" {
		t.Errorf("carriage return kept: %q", box.msgs[1].Content)
	}
}

func TestSendFormat(t *testing.T) {
	var out bytes.Buffer
	a := New(Config{BotName: "Mira"}, strings.NewReader(""), &out, zaptest.NewLogger(t))
	tests := []struct{ content, want string }{
		{"hi", "Mira: hi\n"},
		{"one\ntwo\r\nthree", "Mira: one\n  two\n  three\n"},
	}
	for _, tt := range tests {
		out.Reset()
		id, err := a.Send(context.Background(), state.Outgoing{ChannelID: "console", Content: tt.content})
		if err != nil {
			t.Fatal(err)
		}
		if id == "" {
			t.Error("empty message id")
		}
		if out.String() != tt.want {
			t.Errorf("printed %q, want %q", out.String(), tt.want)
		}
	}
}
