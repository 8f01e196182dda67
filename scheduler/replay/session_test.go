package replay_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/state"
)

func sample() *replay.Session {
	t0 := time.Date(2026, 5, 1, 20, 0, 0, 0, time.UTC)
	return &replay.Session{
		Header: replay.Header{
			Channel:  state.Channel{ID: "-100", Platform: "telegram", Group: true, Title: "Owls", Members: []string{"ana"}},
			Bot:      "Juni",
			Platform: "telegram",
			Settings: replay.Settings{History: 20, MaxIterations: 5, Interrupt: true},
		},
		Items: []replay.Item{
			{Event: &replay.Event{Type: replay.TypeEvent, Time: t0, PlatformID: "7", Sender: "ana", Content: "<b>hi</b> & \"bye\"", Mentioned: true,
				Expect: &replay.Expect{Reply: replay.ReplyYes, Contains: "(?i)yo", NotContains: "token"}}},
			{Tick: &replay.Tick{Type: replay.TypeTick, N: 1, Expect: &replay.TickExpect{Action: "send_message"}, Tick: state.Tick{
				Wake: 3, Trigger: "message", Now: t0.Add(time.Second),
				Request: []state.ChatMessage{{Role: "system", Content: "you are\nJuni"}, {Role: "user", Content: "state"}},
				Raw:     "```json\n{\"action\":\"send_message\",\"channelId\":\"-100\",\"content\":\"yo\"}\n```",
				Usage:   state.Usage{PromptTokens: 10, CompletionTokens: 3}, LatencyMS: 900,
				Action: json.RawMessage(`{"action":"send_message","channelId":"-100","content":"yo"}`),
				Result: `sent to "-100"`, OK: true,
				Effects: json.RawMessage(`[{"kind":"send","channelId":"-100","content":"yo","messageId":"8"}]`),
			}}},
			{Reminder: &replay.Reminder{Type: replay.TypeReminder, Time: t0.Add(time.Hour), Content: "feed the <cat>", MessageID: "9"}},
		},
	}
}

func TestRoundTrip(t *testing.T) {
	s := sample()
	var b bytes.Buffer
	if err := replay.Write(&b, s); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("wrote %d lines, want a header, an event, a tick and a reminder:\n%s", len(lines), b.String())
	}
	for i, prefix := range []string{`{"airi_session":1,"channel":{`, `{"type":"event","time":"2026-05-01T20:00:00Z"`, `{"type":"tick","n":1,"wake":3,`,
		`{"type":"reminder","time":"2026-05-01T21:00:00Z","content":"feed the <cat>","messageId":"9"}`} {
		if !strings.HasPrefix(lines[i], prefix) {
			t.Errorf("line %d = %s\nwant it to start with %s", i+1, lines[i], prefix)
		}
	}
	if !strings.Contains(lines[1], `"content":"<b>hi</b> & \"bye\""`) {
		t.Errorf("chat text should stay readable: %s", lines[1])
	}
	got, err := replay.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	s.Header.Session = replay.Version
	if len(got) != 1 || !reflect.DeepEqual(got[0], s) {
		t.Errorf("read back %+v\nwant %+v", got[0], s)
	}
}

func TestReadSeveralSessions(t *testing.T) {
	var b bytes.Buffer
	a, c := sample(), sample()
	c.Header.Channel.ID = "-200"
	for _, s := range []*replay.Session{a, c} {
		if err := replay.Write(&b, s); err != nil {
			t.Fatal(err)
		}
		b.WriteString("\n") // blank lines are ignored
	}
	got, err := replay.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Header.Channel.ID != "-100" || got[1].Header.Channel.ID != "-200" || len(got[1].Items) != 3 {
		t.Fatalf("read %d sessions: %+v", len(got), got)
	}
}

func TestReadErrors(t *testing.T) {
	const header = `{"airi_session":1,"channel":{"id":"c","platform":"console","group":false},"platform":"console","settings":{"interrupt":true}}`
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "no session header"},
		{"no header", `{"type":"event","time":"2026-01-01T00:00:00Z","sender":"a","content":"b"}`, "line 1: a session starts with a header"},
		{"newer version", `{"airi_session":2,"channel":{}}`, "line 1: session format version 2; this airi reads version 1"},
		{"header without channel id", `{"airi_session":1,"channel":{"platform":"console"},"platform":"console","settings":{}}`, "line 1: header: channel: empty id"},
		{"not json", header + "\nnope", "line 2: not a JSON object"},
		{"unknown type", header + "\n" + `{"type":"note"}`, `line 2: unknown line type "note"`},
		{"misspelt key", header + "\n" + `{"type":"event","time":"2026-01-01T00:00:00Z","sendr":"a","content":"b"}`, `line 2: event: json: unknown field "sendr"`},
		{"reminder without content", header + "\n" + `{"type":"reminder","time":"2026-01-01T00:00:00Z"}`, "line 2: reminder: a reminder without content"},
		{"reminder without time", header + "\n" + `{"type":"reminder","content":"x"}`, "line 2: reminder: a reminder without a time"},
		{"event without time", header + "\n" + `{"type":"event","sender":"a","content":"b"}`, "line 2: event without a time"},
		{"unknown reply", header + "\n" + `{"type":"event","time":"2026-01-01T00:00:00Z","sender":"a","content":"b","expect":{"reply":"maybe"}}`, `line 2: event: expect.reply "maybe": want "yes", "no" or "any"`},
		{"bad regexp", header + "\n" + `{"type":"event","time":"2026-01-01T00:00:00Z","sender":"a","content":"b","expect":{"not_contains":"(token"}}`, "line 2: event: expect.not_contains: error parsing regexp"},
		{"misspelt expect key", header + "\n" + `{"type":"event","time":"2026-01-01T00:00:00Z","sender":"a","content":"b","expect":{"replies":"no"}}`, `unknown field "replies"`},
		{"tick expecting nothing", header + "\n" + `{"type":"tick","wake":1,"trigger":"message","now":"2026-01-01T00:00:00Z","request":[],"raw":"","usage":{"promptTokens":0,"completionTokens":0},"latencyMs":0,"result":"","ok":false,"expect":{}}`, "line 2: tick: expect names no action"},
		{"tick with a record's channel", header + "\n" + `{"type":"tick","channelId":"c","now":"2026-01-01T00:00:00Z"}`, `line 2: tick: json: unknown field "channelId"`},
		{"tick with a record's sections", header + "\n" + `{"type":"tick","now":"2026-01-01T00:00:00Z","sections":[]}`, `line 2: tick: json: unknown field "sections"`},
		{"misspelt effect key", header + "\n" + `{"type":"tick","now":"2026-01-01T00:00:00Z","effects":[{"kind":"send","chanelId":"c"}]}`, `line 2: tick: effects: json: unknown field "chanelId"`},
		{"tick without now", header + "\n\n" + `{"type":"tick","wake":1,"trigger":"message","request":[],"raw":"","usage":{"promptTokens":0,"completionTokens":0},"latencyMs":0,"result":"","ok":false}`, "line 3: tick without a time"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := replay.Read(strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func FuzzRead(f *testing.F) {
	var b bytes.Buffer
	if err := replay.Write(&b, sample()); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte(`{"airi_session":1,"channel":{"id":"c","platform":"p"}}` + "\n" + `{"type":"tick","now":"2026-01-01T00:00:00Z","action":{"action":"x"}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		ss, err := replay.Read(bytes.NewReader(in))
		if err != nil {
			return
		}
		// What reads, writes; and what it writes reads back the same.
		var out bytes.Buffer
		for _, s := range ss {
			if err := replay.Write(&out, s); err != nil {
				t.Fatalf("write what was read: %v", err)
			}
		}
		again, err := replay.Read(bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatalf("read what was written: %v\n%s", err, out.String())
		}
		if len(again) != len(ss) {
			t.Fatalf("%d sessions became %d", len(ss), len(again))
		}
	})
}

// TestShippedSessionsRoundTrip: reading a shipped session and writing it
// again gives the file back byte for byte, so the format is stable.
func TestShippedSessionsRoundTrip(t *testing.T) {
	files, err := filepath.Glob("../../testdata/sessions/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no shipped sessions found: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ss, err := replay.Read(bytes.NewReader(want))
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			for _, s := range ss {
				if err := replay.Write(&got, s); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(got.Bytes(), want) {
				gl, wl := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
				for i := range min(len(gl), len(wl)) {
					if gl[i] != wl[i] {
						t.Fatalf("line %d differs:\ngot  %.300s\nwant %.300s", i+1, gl[i], wl[i])
					}
				}
				t.Fatalf("got %d lines, want %d", len(gl), len(wl))
			}
		})
	}
}
