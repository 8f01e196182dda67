package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/state"
)

func stateMessage(t *testing.T, b *Builder, in Input) string {
	t.Helper()
	p, err := b.Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	last := p.Messages[len(p.Messages)-1]
	if last.Role != RoleUser {
		t.Fatalf("last message role = %s, want user", last.Role)
	}
	return last.Content
}

func TestStateActionHistory(t *testing.T) {
	b := newTestBuilder(t, "", BuilderOptions{})
	in := fixture("console", true)
	in.Actions = nil
	// Ten earlier records over wakes 1..5, then the current wake 6.
	for i := range 10 {
		// Odd records failed: their result is shown; an OK one is named only.
		in.Actions = append(in.Actions, state.ActionRecord{Wake: int64(1 + i/2), Name: "sleep", OK: i%2 == 0,
			Action: json.RawMessage(fmt.Sprintf(`{"action":"sleep","duration":%d}`, i)), Result: fmt.Sprintf("earlier result %d\nsecond line", i)})
	}
	long := strings.TrimSpace(strings.Repeat("a very long read result line ", 20))
	in.Actions = append(in.Actions,
		state.ActionRecord{Wake: 6, Name: "read_unread_messages", OK: true, Action: json.RawMessage(`{"action":"read_unread_messages","channelId":"-1009876543210"}`), Result: "other channel:\n" + long},
		state.ActionRecord{Wake: 6, Name: "send_message", OK: false, Action: json.RawMessage(`{"action":"send_message","channelId":"-1001234567890","content":"hi"}`), Result: "aborted: 2 new messages arrived; read them first"},
	)
	in.Wake = 6
	got := stateMessage(t, b, in)
	earlier := got[strings.Index(got, "Earlier turns:\n"):strings.Index(got, "This turn so far:")]
	want := "Earlier turns:\n- sleep\n- sleep: earlier result 5 second line\n- sleep\n- sleep: earlier result 7 second line\n- sleep\n- sleep: earlier result 9 second line\n"
	if earlier != want {
		t.Errorf("earlier turns:\n%s\nwant the last 6, one line each:\n%s", earlier, want)
	}
	if strings.Contains(got, long) || !strings.Contains(got, "result: other channel; shown to you on an earlier call") {
		t.Errorf("a read shown by an earlier call of the wake is repeated, not summarized:\n%s", got)
	}
	if !strings.Contains(got, "aborted: 2 new messages arrived; read them first") {
		t.Errorf("current wake's failed send not shown:\n%s", got)
	}
}

func TestStateReadResultShownOnce(t *testing.T) {
	b := newTestBuilder(t, "", BuilderOptions{})
	result := "2 messages:\n- \"Ada\": \"first\"\n- \"Bo\": \"second\""
	read := state.ActionRecord{Wake: 7, Name: "read_unread_messages", OK: true,
		Action: json.RawMessage(`{"action":"read_unread_messages","channelId":"-1001234567890"}`), Result: result}
	readOther := state.ActionRecord{Wake: 7, Name: "read_unread_messages", OK: true,
		Action: json.RawMessage(`{"action":"read_unread_messages","channelId":"-1009876543210"}`), Result: result}
	sent := state.ActionRecord{Wake: 7, Name: "send_message", OK: true, Result: `sent to "-1001234567890"`,
		Action: json.RawMessage(`{"action":"send_message","channelId":"-1001234567890","content":"hi"}`)}
	tests := []struct {
		name    string
		records []state.ActionRecord
		whole   bool
		summary string
	}{
		// The previous call's read: its messages are marked read once this
		// request is answered, so every one of them is shown.
		{"latest read shown whole", []state.ActionRecord{read}, true, ""},
		{"latest read of another channel shown whole", []state.ActionRecord{readOther}, true, ""},
		// Shown by an earlier request of the wake: summarized.
		{"earlier read summarized", []state.ActionRecord{read, sent}, false, "result: 2 messages; " + readShown},
		{"earlier read of another channel summarized", []state.ActionRecord{readOther, sent}, false, "result: 2 messages; shown to you on an earlier call and now read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := fixture("console", true)
			in.Actions = tt.records
			got := stateMessage(t, b, in)
			if whole := strings.Contains(got, `"first"`) && strings.Contains(got, `"second"`); whole != tt.whole {
				t.Errorf("read result shown whole = %v, want %v:\n%s", whole, tt.whole, got)
			}
			if tt.summary != "" && !strings.Contains(got, tt.summary) {
				t.Errorf("read record not summarized as %q:\n%s", tt.summary, got)
			}
		})
	}
}

func TestStateTimeAndUnread(t *testing.T) {
	zone := time.FixedZone("CST", 8*3600)
	b := newTestBuilder(t, "", BuilderOptions{TimeZone: zone})
	in := fixture("telegram", true)
	in.Unread = map[string]int{"-1009876543210": 3, "-1001234567890": 2, "777": 1, "zero": 0}
	in.Remaining = 2
	got := stateMessage(t, b, in)
	for _, want := range []string{
		"Sun 2026-03-15 05:40 CST (+08:00)",
		`Unread: 6 ("-1001234567890" "Harbour Lights": 2, "-1009876543210" "Night Sky Club": 3, "777": 1).`,
		"2 more unread here",
		`- id 5020 05:39 Ada (mentions you): "@Juni which direction do we look?"`,
		"Answer with one JSON action only.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("state message lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "zero") {
		t.Errorf("channel without unread listed:\n%s", got)
	}
}

func TestStateZoneDefaultsToNow(t *testing.T) {
	b := newTestBuilder(t, "", BuilderOptions{})
	in := fixture("console", false)
	in.Now = in.Now.In(time.FixedZone("JST", 9*3600))
	got := stateMessage(t, b, in)
	if !strings.Contains(got, "Sun 2026-03-15 06:40 JST (+09:00)") || !strings.Contains(got, " 06:39 Ada") {
		t.Errorf("times not shown in the zone of Now:\n%s", got)
	}
}

func TestStateSendShownOnce(t *testing.T) {
	b := newTestBuilder(t, "", BuilderOptions{})
	in := fixture("console", true)
	in.Actions = []state.ActionRecord{
		// Its text is the last assistant turn of the history.
		{Wake: 7, Name: "send_message", OK: true, Result: `sent to "-1001234567890"`,
			Action: json.RawMessage(`{"action":"send_message","channelId":"-1001234567890","content":"coffee's mine. tea for me, obviously"}`)},
		// Another channel's send is not in this history: shown in full.
		{Wake: 7, Name: "send_message", OK: true, Result: `sent to "-1009876543210"`,
			Action: json.RawMessage(`{"action":"send_message","channelId":"-1009876543210","content":"clear skies here"}`)},
	}
	got := stateMessage(t, b, in)
	for _, want := range []string{
		"- send_message (shown in the history above)\n  result: sent to \"-1001234567890\"",
		`- {"action":"send_message","channelId":"-1009876543210","content":"clear skies here"}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("state lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "tea for me, obviously") != 0 {
		t.Errorf("sent text repeated in the state message:\n%s", got)
	}
}

func TestActionParamHelpers(t *testing.T) {
	tests := []struct {
		raw     string
		channel bool
		content string
	}{
		{`{"action":"read_unread_messages","channelId":"c1"}`, true, ""},
		{`{"action":"read_unread_messages","parameters":{"channelId":"c1"}}`, true, ""},
		{`{"action":"read_unread_messages","channelId":"c2"}`, false, ""},
		{`{"action":"send_message","channelId":"c1","content":"hi"}`, true, "hi"},
		{`{"action":"send_message","parameters":{"channelId":"c1","content":"yo"}}`, true, "yo"},
		{`not json`, false, ""},
	}
	for _, tt := range tests {
		if got := readsChannel(json.RawMessage(tt.raw), "c1"); got != tt.channel {
			t.Errorf("readsChannel(%s) = %v", tt.raw, got)
		}
		if got := sentContent(json.RawMessage(tt.raw)); got != tt.content {
			t.Errorf("sentContent(%s) = %q", tt.raw, got)
		}
	}
	if got := readsChannel(json.RawMessage(`{"channelId":123}`), "123"); !got {
		t.Error("numeric channel id not matched")
	}
	if got := oneLine("a\nb   c", 10); got != "a b c" {
		t.Errorf("oneLine = %q", got)
	}
	if got := oneLine(strings.Repeat("x", 20), 10); got != strings.Repeat("x", 9)+"…" {
		t.Errorf("oneLine cut = %q", got)
	}
}
