package actions_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/state"
)

// sendRaw is the send_message action for content, encoded as JSON.
func sendRaw(channel, content string) string {
	b, err := json.Marshal(map[string]string{"channelId": channel, "content": content})
	if err != nil {
		panic(err)
	}
	return "send_message " + string(b)
}

// withSplitting gives the fixture a sender that splits every 100
// characters and reports it.
func withSplitting(f *fixture, d *actions.HandlerDeps) {
	s := &splittingSender{partSize: 100}
	f.sender = &s.fakeSender
	d.Sender = s
}

func TestSendLimits(t *testing.T) {
	tests := []struct {
		name    string
		content string
		chars   int // MaxSendChars; 0 leaves the default
		sent    bool
		want    []string // in the result text
	}{
		{"within both limits", strings.Repeat("a", 300), 0, true, []string{`sent to "c1"`}},
		{"a 100 KB message", strings.Repeat("word ", 20000), 0, false,
			[]string{"not sent", "99999 characters long", "at most 4000", "nothing went out"}},
		{"a 100 KB message under a high character limit", strings.Repeat("word ", 20000), 1 << 20, false,
			[]string{"not sent", "99999 characters", "1000 separate messages", "at most 3", "nothing went out"}},
		{"one character over the default", strings.Repeat("b", 4001), 0, false,
			[]string{"not sent", "4001 characters long", "at most 4000", "nothing went out"}},
		{"a character limit counts characters, not bytes", strings.Repeat("é", 300), 300, true, []string{"sent"}},
		{"over the parts limit", strings.Repeat("c", 301), 0, false,
			[]string{"not sent", "301 characters", "4 separate messages on console", "at most 3"}},
		{"exactly the parts limit", strings.Repeat("d", 300), 0, true, []string{"sent"}},
		{"only markup", "** **", 0, false, []string{"not sent", "no visible text"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixtureWith(t, func(f *fixture, d *actions.HandlerDeps) {
				withSplitting(f, d)
				d.MaxSendChars = tt.chars
			})
			res := f.run(t, sendRaw("c1", tt.content), actions.Call{})
			if got := len(f.sender.sent); got != map[bool]int{true: 1}[tt.sent] {
				t.Fatalf("%d sends went out: %+v", got, res)
			}
			if res.OK != tt.sent || !res.Next {
				t.Errorf("result %+v", res)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("result %q lacks %q", res.Text, w)
				}
			}
			if !tt.sent {
				pending, err := f.st.PendingOutbox(context.Background())
				hist, _, herr := f.st.History(context.Background(), "c1", 10)
				if err != nil || herr != nil || len(pending) != 0 || len(hist) != 0 {
					t.Errorf("a refused send left records: outbox %v, history %v (%v, %v)", pending, hist, err, herr)
				}
			}
		})
	}
}

func TestSendRepeatIsRefused(t *testing.T) {
	f := newFixture(t)
	send := func(content string) actions.Result {
		t.Helper()
		res := f.run(t, sendRaw("c1", content), actions.Call{})
		f.now = f.now.Add(time.Second)
		return res
	}
	for i := range 5 {
		res := send("Good morning!")
		if i > 0 && (res.OK || !strings.Contains(res.Text, "same message") || !strings.Contains(res.Text, "ago")) {
			t.Errorf("repeat %d: %+v", i, res)
		}
	}
	if len(f.sender.sent) != 1 {
		t.Fatalf("five identical sends delivered %d messages", len(f.sender.sent))
	}
	if res := send("  Good   morning!\n"); res.OK {
		t.Errorf("a repeat differing only in white space went out: %+v", res)
	}
	if res := send("Good morning, Ann!"); !res.OK {
		t.Errorf("a different message was refused: %+v", res)
	}
	if res := send("Good morning!"); res.OK {
		t.Errorf("a repeat after another message went out: %+v", res)
	}
	if res := f.run(t, sendRaw("c2", "Good morning!"), actions.Call{}); !res.OK {
		t.Errorf("the same message in another channel was refused: %+v", res)
	}

	// Older than ten minutes, the same text is a new message.
	f.now = f.now.Add(10 * time.Minute)
	if res := send("Good morning!"); !res.OK {
		t.Errorf("a repeat after ten minutes was refused: %+v", res)
	}
	// Only the bot's last five messages count.
	for i := range 5 {
		if res := send(fmt.Sprintf("news %d", i)); !res.OK {
			t.Fatalf("news %d refused: %+v", i, res)
		}
	}
	if res := send("Good morning!"); !res.OK {
		t.Errorf("a message six sends back was refused: %+v", res)
	}
	if res := send("news 4"); res.OK {
		t.Errorf("a repeat of the last message went out: %+v", res)
	}
}

func TestSendStripsSilenceUntilNoneIsLeft(t *testing.T) {
	tests := []struct {
		content string
		want    string // "" means nothing is sent
	}{
		{"@@SILENT@@", ""},
		{"@@SIL@@SILENT@@ENT@@", ""},
		{"@@S@@SIL@@SILENT@@ENT@@ILENT@@", ""},
		{"a@@SIL@@SILENT@@ENT@@b", "ab"},
		{" \u200b@@SILENT@@\u00a0\n\u2060 ", ""},
		{"hi @@SILENT@@there @@SILENT", "hi there @@SILENT"},
		{"@@SILENT@@SILENT@@", "SILENT@@"},
	}
	for _, tt := range tests {
		t.Run(tt.content, func(t *testing.T) {
			f := newFixture(t)
			res := f.run(t, sendRaw("c1", tt.content), actions.Call{})
			if tt.want == "" {
				if len(f.sender.sent) != 0 || !res.OK || !strings.Contains(res.Text, "silent") {
					t.Errorf("sent %v, result %+v", f.sender.sent, res)
				}
				return
			}
			if len(f.sender.sent) != 1 || f.sender.sent[0].Content != tt.want {
				t.Errorf("sent %+v, want %q", f.sender.sent, tt.want)
			}
		})
	}
}

// failingIngest is a store whose history refuses every message.
type failingIngest struct{ actions.Store }

func (failingIngest) Ingest(context.Context, state.Message) (state.Message, bool, error) {
	return state.Message{}, false, errors.New("disk full")
}

func TestDeliveredSendIsReportedAsSent(t *testing.T) {
	t.Run("longer than the history holds", func(t *testing.T) {
		f := newFixtureWith(t, func(_ *fixture, d *actions.HandlerDeps) { d.MaxSendChars = 10000 })
		content := strings.Repeat("€", 6000) // 18,000 bytes
		res := f.run(t, sendRaw("c1", content), actions.Call{})
		if !res.OK || res.Text != `sent to "c1"` || len(f.sender.sent) != 1 || f.sender.sent[0].Content != content {
			t.Fatalf("result %+v, %d sent", res, len(f.sender.sent))
		}
		hist, _, err := f.st.History(context.Background(), "c1", 10)
		if err != nil || len(hist) != 1 {
			t.Fatalf("history %v, %v", len(hist), err)
		}
		got := hist[0].Content
		if len(got) > state.MaxContentBytes || !strings.HasSuffix(got, "[…message cut]") || !strings.HasPrefix(got, strings.Repeat("€", 5000)) {
			t.Errorf("stored %d bytes ending %q", len(got), got[len(got)-30:])
		}
	})
	t.Run("the history refuses it", func(t *testing.T) {
		f := newFixtureWith(t, func(f *fixture, d *actions.HandlerDeps) { d.Store = failingIngest{f.st} })
		res := f.run(t, sendRaw("c1", "hello"), actions.Call{})
		if !res.OK || !res.Answered || res.Text != `sent to "c1"` || len(res.Effects) != 1 {
			t.Errorf("result %+v", res)
		}
		pending, err := f.st.PendingOutbox(context.Background())
		if err != nil || len(pending) != 0 {
			t.Errorf("outbox still pending: %v, %v", pending, err)
		}
	})
	t.Run("only the first parts went out", func(t *testing.T) {
		f := newFixture(t)
		f.sender.err = fmt.Errorf("part 2 of 2: %w", state.ErrOutcomeUnknown)
		f.sender.partial = true
		res := f.run(t, sendRaw("c1", "hello"), actions.Call{})
		if !res.OK || !strings.Contains(res.Text, "only in part") || !strings.Contains(res.Text, "not be repeated") {
			t.Errorf("result %+v", res)
		}
		hist, _, err := f.st.History(context.Background(), "c1", 10)
		if err != nil || len(hist) != 1 || hist[0].PlatformID != "p1" {
			t.Errorf("history %+v, %v", hist, err)
		}
	})
}

func TestSleepLengthsDoNotOverflow(t *testing.T) {
	tests := []struct {
		duration string
		want     time.Duration
	}{
		{"9223372036854775807", time.Minute},
		{"9223372036854", time.Minute},
		{"60001", time.Minute},
		{"60000", time.Minute},
		{"1500", 1500 * time.Millisecond},
	}
	f := newFixture(t)
	for _, tt := range tests {
		res := f.run(t, `sleep {"duration":`+tt.duration+`}`, actions.Call{})
		if res.Sleep != tt.want || !res.OK {
			t.Errorf("sleep %s ms: %+v, want %s", tt.duration, res, tt.want)
		}
	}
	if res := f.run(t, `sleep {"duration":0}`, actions.Call{}); res.Sleep != 0 || !strings.Contains(res.Text, "zero") {
		t.Errorf("sleep 0: %+v", res)
	}
}

func TestAllowlistHidesExcludedChannels(t *testing.T) {
	f := newFixtureWith(t, func(_ *fixture, d *actions.HandlerDeps) {
		d.Allowed = func(id string) bool { return id != "c2" }
	})
	if err := f.st.UpsertChannel(context.Background(), state.Channel{ID: "secret-room", Platform: "console", Title: "hidden"}); err != nil {
		t.Fatal(err)
	}
	f.ingest(t, "c2", "1", "unread in the excluded channel")
	res := f.run(t, `list_channels {}`, actions.Call{})
	if !strings.Contains(res.Text, "2 channel(s)") || strings.Contains(res.Text, `"c2"`) || strings.Contains(res.Text, "room c2") {
		t.Errorf("list shows the excluded channel:\n%s", res.Text)
	}
	for _, raw := range []string{
		`send_message {"channelId":"c2","content":"x"}`, `read_unread_messages {"channelId":"c2"}`,
		`send_message {"channelId":"nope","content":"x"}`,
	} {
		res := f.run(t, raw, actions.Call{})
		_, known, _ := strings.Cut(res.Text, "known channels:")
		if res.OK || !strings.Contains(res.Text, "unknown channel") || !strings.Contains(known, `"c1"`) || strings.Contains(known, "c2") {
			t.Errorf("%s: %q", raw, res.Text)
		}
	}
	if len(f.sender.sent) != 0 {
		t.Errorf("sent %v", f.sender.sent)
	}
	if n, _ := f.st.UnreadCounts(context.Background()); n["c2"] != 1 {
		t.Errorf("the excluded channel's message was read: %v", n)
	}
}
