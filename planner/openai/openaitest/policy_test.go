package openaitest

import (
	"encoding/json"
	"fmt"
	"testing"
)

const systemMsg = `You are Juni.
- send_message {channelId, content, replyTo?}: Send one message to a channel.
  channelId (string): Id of the channel to send to; the current channel or another one listed in the state.
Runtime: you are "Juni" on console, direct chat, channel id "console".`

func stateMsg(body string) string {
	return "[runtime state] Saturday 2026-03-14 21:40 UTC (+00:00)\n" + body +
		"\nUnread: none.\nAnswer with one JSON action and nothing else."
}

func TestEcho(t *testing.T) {
	newTwo := stateMsg(`New messages:
- id "5020" 21:39 "Ada" (mentions you): "@Juni which direction do we look?"
- id "5021" 21:40 "Bo": "and do we need: \"binoculars\""`)
	tests := []struct {
		name string
		opts EchoOptions
		user string
		msgs []Message
		want string
	}{
		{
			name: "echoes the newest new message",
			user: "airi:-1001234567890",
			msgs: []Message{{Role: "system", Content: systemMsg}, {Role: "user", Content: newTwo}},
			want: `{"action":"send_message","channelId":"-1001234567890","content":"echo: and do we need: \"binoculars\""}`,
		},
		{
			name: "echoes all",
			opts: EchoOptions{All: true, Prefix: "> "},
			user: "airi:tg:42",
			msgs: []Message{{Role: "system", Content: systemMsg}, {Role: "user", Content: newTwo}},
			want: `{"action":"send_message","channelId":"tg:42","content":"> @Juni which direction do we look? / and do we need: \"binoculars\""}`,
		},
		{
			name: "unquoted id and sender",
			user: "airi:console",
			msgs: []Message{{Role: "system", Content: systemMsg}, {Role: "user", Content: stateMsg("New messages:\n- id console-1796095640449452517-1 03:27 you: \"hello\"\n- id console-1796095640450124009-2 03:27 you: \"second: one\"")}},
			want: `{"action":"send_message","channelId":"console","content":"echo: second: one"}`,
		},
		{
			name: "channel from the state header",
			msgs: []Message{{Role: "system", Content: systemMsg}, {Role: "user", Content: stateMsg("Channel \"-100555\" \"Harbour\", group chat.\nNew messages:\n- id \"1\" 10:00 \"Ada\": \"hi\"")}},
			want: `{"action":"send_message","channelId":"-100555","content":"echo: hi"}`,
		},
		{
			name: "channel from the runtime line",
			msgs: []Message{{Role: "system", Content: systemMsg}, {Role: "user", Content: stateMsg("New messages:\n- id \"1\" 10:00 \"you\": \"hello\"")}},
			want: `{"action":"send_message","channelId":"console","content":"echo: hello"}`,
		},
		{
			name: "channel from an earlier send",
			msgs: []Message{
				{Role: "system", Content: "You are a bot."},
				{Role: "assistant", Content: `{"action":"send_message","channelId":"room-9","content":"x"}`},
				{Role: "user", Content: stateMsg("New messages:\n- you: hello")},
			},
			want: `{"action":"send_message","channelId":"room-9","content":"echo: hello"}`,
		},
		{
			name: "nothing new after a reply",
			user: "airi:console",
			msgs: []Message{
				{Role: "system", Content: systemMsg},
				{Role: "user", Content: `you: "hello"`},
				{Role: "assistant", Content: `{"action":"send_message","channelId":"console","content":"echo: hello"}`},
				{Role: "user", Content: stateMsg("No new messages here.\nThis turn so far:\n- send_message (shown in the history above)\n  result: sent")},
			},
			want: `{"action":"continue"}`,
		},
		{
			name: "answers what a failed tick left unanswered",
			user: "airi:console",
			msgs: []Message{
				{Role: "system", Content: systemMsg},
				{Role: "assistant", Content: `{"action":"send_message","channelId":"console","content":"echo: one"}`},
				{Role: "user", Content: `you: "two"`},
				{Role: "user", Content: `you: "three"`},
				{Role: "user", Content: stateMsg("No new messages here.\nThis turn so far:\n- (no valid action)\n  result: your answer was not JSON")},
			},
			want: `{"action":"send_message","channelId":"console","content":"echo: three"}`,
		},
		{
			name: "reads when more are unread",
			user: "airi:console",
			msgs: []Message{{Role: "system", Content: systemMsg}, {Role: "user", Content: stateMsg("New messages:\n- id \"1\" 10:00 \"you\": \"a\"\n4 more unread here: read them before replying.")}},
			want: `{"action":"read_unread_messages","channelId":"console"}`,
		},
		{
			name: "action lines are not messages",
			user: "airi:console",
			msgs: []Message{{Role: "system", Content: systemMsg}, {Role: "user", Content: stateMsg("No new messages here.\nEarlier turns:\n- {\"action\":\"send_message\",\"channelId\":\"console\",\"content\":\"a: b\"} -> sent\n- continue\nThis turn so far:\n- {\"action\":\"read_unread_messages\"}\n  result: you: \"x\"")}},
			want: `{"action":"continue"}`,
		},
		{
			name: "no user message at all",
			msgs: []Message{{Role: "system", Content: systemMsg}},
			want: `{"action":"continue"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Echo(tt.opts)(t.Context(), Request{User: tt.user, Messages: tt.msgs}).Content
			if got != tt.want {
				t.Errorf("Echo =\n %s\nwant\n %s", got, tt.want)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("answer %s is not JSON", got)
			}
		})
	}
}

func TestReadFirst(t *testing.T) {
	answer := ReadFirst(Echo(EchoOptions{}))
	system := Message{Role: "system", Content: systemMsg}
	first := []Message{system, {Role: "user", Content: stateMsg("New messages:\n- id 1 Ada: \"hi\"")}}
	if got := answer(t.Context(), Request{User: "airi:42", Messages: first}).Content; got != `{"action":"read_unread_messages","channelId":"42"}` {
		t.Errorf("first call = %s, want a read", got)
	}
	second := []Message{system, {Role: "user", Content: `Ada: "hi"`},
		{Role: "user", Content: stateMsg("No new messages here.\nThis turn so far:\n- {\"action\":\"read_unread_messages\",\"channelId\":\"42\"}\n  result: no unread messages")}}
	if got := answer(t.Context(), Request{User: "airi:42", Messages: second}).Content; got != `{"action":"send_message","channelId":"42","content":"echo: hi"}` {
		t.Errorf("call after the read = %s, want the reply", got)
	}
	quiet := []Message{system, {Role: "user", Content: stateMsg("No new messages here.")}}
	if got := answer(t.Context(), Request{User: "airi:42", Messages: quiet}).Content; got != `{"action":"continue"}` {
		t.Errorf("nothing new = %s, want continue", got)
	}
}

func TestFaults(t *testing.T) {
	ok := Sequence(Text("ok"))
	kindOf := func(r Reply) string {
		switch {
		case r.Status == 429:
			if r.RetryAfter == "" {
				return "429 without Retry-After"
			}
			return FaultRateLimit
		case r.Status == 500:
			return FaultServer
		case r.Hang:
			return FaultHang
		case r.Content != "ok":
			return FaultProse
		}
		return ""
	}
	run := func(opts FaultOptions, n int) []string {
		f := Faults(ok, opts)
		out := make([]string, n)
		for i := range out {
			out[i] = kindOf(f(t.Context(), Request{Call: i + 1}))
		}
		return out
	}

	a := run(FaultOptions{Rate: 0.2, Seed: 7}, 1000)
	b := run(FaultOptions{Rate: 0.2, Seed: 7}, 1000)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("the same seed gave different faults")
	}
	if c := run(FaultOptions{Rate: 0.2, Seed: 8}, 1000); fmt.Sprint(a) == fmt.Sprint(c) {
		t.Errorf("different seeds gave the same faults")
	}
	counts := map[string]int{}
	for _, k := range a {
		counts[k]++
	}
	faults := 1000 - counts[""]
	if faults < 150 || faults > 250 {
		t.Errorf("%d faults in 1000 calls at rate 0.2", faults)
	}
	for _, k := range faultKinds {
		if counts[k] == 0 {
			t.Errorf("fault %q never drawn: %v", k, counts)
		}
	}
	for _, k := range run(FaultOptions{Rate: 0}, 200) {
		if k != "" {
			t.Fatalf("rate 0 injected %q", k)
		}
	}
	for _, k := range run(FaultOptions{Rate: 1, Seed: 1}, 200) {
		if k == "" {
			t.Fatalf("rate 1 let a call through")
		}
	}
}

func TestParseFaultRate(t *testing.T) {
	for in, want := range map[string]float64{"0.2": 0.2, "20%": 0.2, " 0 ": 0, "100%": 1} {
		got, err := ParseFaultRate(in)
		if err != nil || got != want {
			t.Errorf("ParseFaultRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseFaultRate("lots"); err == nil {
		t.Errorf("ParseFaultRate accepted lots")
	}
}

func FuzzEcho(f *testing.F) {
	f.Add("airi:console", "New messages:\n- id \"1\" 10:00 \"you\": \"hi\"", `you: "x"`)
	f.Add("", "Channel \"-5\"\n- Ada: hello", "")
	f.Add("", "No new messages here.", "Bo: \"\\u00e9\"")
	echo := Echo(EchoOptions{})
	f.Fuzz(func(t *testing.T, user, state, turn string) {
		r := echo(t.Context(), Request{User: user, Messages: []Message{{Role: "system", Content: systemMsg}, {Role: "user", Content: turn}, {Role: "user", Content: state}}})
		var a struct {
			Action    string `json:"action"`
			ChannelID string `json:"channelId"`
		}
		if err := json.Unmarshal([]byte(r.Content), &a); err != nil {
			t.Fatalf("answer %q is not JSON: %v", r.Content, err)
		}
		if a.Action != "continue" && a.ChannelID == "" {
			t.Fatalf("answer %q names no channel", r.Content)
		}
	})
}
