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

func TestRunReadsLinesOfAnyLength(t *testing.T) {
	limit := state.MaxContentBytes
	huge := strings.Repeat("é", 1<<19) // 1 MiB on one line
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		// The marker is 17 bytes: the cut falls inside an "é" and backs off.
		{"a 1 MiB line, then a short one", huge + "\nstill here\n", []string{huge[:limit-len(cutMarker)-1] + cutMarker, "still here"}},
		{"a line of exactly the limit", strings.Repeat("a", limit) + "\r\n", []string{strings.Repeat("a", limit)}},
		{"one byte over the limit", strings.Repeat("a", limit+1) + "\n", []string{strings.Repeat("a", limit-len(cutMarker)) + cutMarker}},
		{"cut between characters", "x" + huge + "\n", []string{"x" + huge[:limit-len(cutMarker)-1] + cutMarker}},
		{"last line without a line end", "one\ntwo", []string{"one", "two"}},
		{"carriage return line ends", "one\r\ntwo\r\n", []string{"one", "two"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := New(Config{ChannelID: "c1"}, strings.NewReader(tt.input), &bytes.Buffer{}, zaptest.NewLogger(t))
			var box inbox
			if err := a.Run(context.Background(), &box); err != nil {
				t.Fatal(err)
			}
			if len(box.msgs) != len(tt.want) {
				t.Fatalf("delivered %d messages, want %d", len(box.msgs), len(tt.want))
			}
			for i, m := range box.msgs {
				if err := m.Validate(); err != nil {
					t.Errorf("message %d: %v", i, err)
				}
				if m.Content != tt.want[i] {
					t.Errorf("message %d: %d bytes ending %q, want %d bytes ending %q", i,
						len(m.Content), tail(m.Content), len(tt.want[i]), tail(tt.want[i]))
				}
			}
		})
	}
}

func tail(s string) string { return s[max(len(s)-24, 0):] }

func TestSendRemovesTerminalControls(t *testing.T) {
	tests := []struct{ name, content, want string }{
		{"colour", "\x1b[31mred\x1b[0m text", "Mira: red text\n"},
		{"window title (OSC with BEL)", "\x1b]0;owned\ahello", "Mira: hello\n"},
		{"hyperlink (OSC with ST)", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "Mira: link\n"},
		{"clear screen and cursor moves", "\x1b[2J\x1b[Hhi\x1b[1A\x1b7\x1b8", "Mira: hi\n"},
		{"8-bit CSI", "a\u009b31mb", "Mira: ab\n"},
		{"bell, backspace, NUL, DEL", "a\a\bb\x00c\x7fd", "Mira: abcd\n"},
		{"carriage return cannot overwrite", "safe\rEvil: forged", "Mira: safe\n  Evil: forged\n"},
		{"newlines and tabs kept", "one\n\ttwo\r\nthree", "Mira: one\n  \ttwo\n  three\n"},
		{"unterminated sequence", "ok\x1b]0;title without end", "Mira: ok\n"},
		{"invalid UTF-8", "a\xffb", "Mira: a\uFFFDb\n"},
		{"plain unicode untouched", "héllo 世界 🙂", "Mira: héllo 世界 🙂\n"},
	}
	var out bytes.Buffer
	a := New(Config{BotName: "Mira"}, strings.NewReader(""), &out, zaptest.NewLogger(t))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out.Reset()
			if _, err := a.Send(context.Background(), state.Outgoing{ChannelID: "console", Content: tt.content}); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("printed %q, want %q", out.String(), tt.want)
			}
		})
	}
}

func TestReactFormat(t *testing.T) {
	var out bytes.Buffer
	a := New(Config{BotName: "Mira"}, strings.NewReader(""), &out, zaptest.NewLogger(t))
	tests := []struct{ emoji, message, want string }{
		{"👍", "console-1-1", "Mira reacted 👍 to console-1-1\n"},
		{"\x1b[2J🔥\n", "console-1-2", "Mira reacted 🔥  to console-1-2\n"},
	}
	for _, tt := range tests {
		out.Reset()
		if err := a.React(context.Background(), state.Reacting{ChannelID: "console", MessageID: tt.message, Emoji: tt.emoji}); err != nil {
			t.Fatal(err)
		}
		if out.String() != tt.want {
			t.Errorf("printed %q, want %q", out.String(), tt.want)
		}
	}
}
