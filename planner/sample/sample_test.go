package sample

import (
	"strings"
	"testing"
	"time"
)

func TestInput(t *testing.T) {
	direct, group := Input("telegram", false), Input("telegram", true)
	if direct.Channel.Group || !group.Channel.Group || len(group.Channel.Members) == 0 {
		t.Errorf("direct %+v, group %+v: want a direct chat and a group with members", direct.Channel, group.Channel)
	}
	for _, in := range []struct {
		name string
		n    int
	}{{"direct", len(direct.History)}, {"group", len(group.History)}} {
		if in.n == 0 {
			t.Errorf("%s sample has no history", in.name)
		}
	}
	if group.HistoryTotal != len(group.History) || len(group.Incoming) != 2 || !group.Incoming[0].Mentioned {
		t.Errorf("group sample: total %d of %d, incoming %+v", group.HistoryTotal, len(group.History), group.Incoming)
	}
}

func TestApply(t *testing.T) {
	in := Input("console", true)
	raw := `{"channel":{"id":"c9","title":"Attic"},"now":"2026-05-01T10:00:00Z",
		"incoming":[{"sender":"Ada","content":"hello"}],
		"actions":[{"action":{"action":"send_message","text":"hi"},"result":"sent","ok":false}],
		"unread":{"c8":4}}`
	if err := Apply(&in, []byte(raw)); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	if in.Channel.ID != "c9" || in.Channel.Title != "Attic" || in.Channels[0].ID != "c9" || !in.Now.Equal(now) {
		t.Errorf("channel %+v, now %s", in.Channel, in.Now)
	}
	if len(in.Incoming) != 1 || in.Incoming[0].PlatformID != "incoming-1" || !in.Incoming[0].Time.Equal(now) || in.Incoming[0].Read {
		t.Errorf("incoming = %+v", in.Incoming)
	}
	for _, m := range in.History {
		if m.ChannelID != "c9" {
			t.Errorf("history message %+v kept its channel", m)
		}
	}
	if len(in.Actions) != 1 || in.Actions[0].Name != "send_message" || in.Actions[0].OK || in.Unread["c8"] != 4 {
		t.Errorf("actions %+v, unread %v", in.Actions, in.Unread)
	}
	for _, tc := range []struct{ raw, want string }{
		{`{"now":"yesterday"}`, "now:"},
		{`{"history":[{"content":"x","time":"noon"}]}`, "history[0].time"},
		{`{"actions":[{"action":"x"}]}`, "actions[0].action"},
		{`[`, "decode"},
	} {
		in := Input("console", false)
		if err := Apply(&in, []byte(tc.raw)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Apply(%s) = %v, want an error naming %q", tc.raw, err, tc.want)
		}
	}
}
