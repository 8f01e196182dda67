package replay_test

import (
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/state"
)

func TestEventsOfChangedMessages(t *testing.T) {
	t0 := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	base := state.Message{ChannelID: "c", PlatformID: "7", SenderName: "Ada", Content: "new", Time: t0}
	tests := []struct {
		name string
		msg  func(m state.Message) state.Message
		want string // change:content@seconds after t0, per line
	}{
		{"plain", func(m state.Message) state.Message { return m }, ":new@0"},
		{"edited", func(m state.Message) state.Message {
			m.Edited, m.Previous, m.Changed = true, "old", t0.Add(5*time.Second)
			return m
		}, ":old@0 edited:new@5"},
		{"deleted", func(m state.Message) state.Message {
			m.Deleted, m.Changed = true, t0.Add(9*time.Second)
			return m
		}, ":new@0 deleted:@9"},
		{"edited then deleted", func(m state.Message) state.Message {
			m.Edited, m.Previous, m.Deleted, m.Changed = true, "old", true, t0.Add(9*time.Second)
			return m
		}, ":old@0 edited:new@9 deleted:@9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range replay.EventsOf(tt.msg(base)) {
				got = append(got, e.Change+":"+e.Content+"@"+strings.TrimSuffix(e.Time.Sub(t0).String(), "s"))
				m := e.Message("c")
				if m.PlatformID != "7" || m.Edited != (e.Change == replay.ChangeEdited) || m.Deleted != (e.Change == replay.ChangeDeleted) {
					t.Errorf("message of %+v = %+v", e, m)
				}
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("lines %v, want %s", got, tt.want)
			}
		})
	}
}

func TestReadRefusesUnknownChange(t *testing.T) {
	head := `{"airi_session":1,"channel":{"id":"c","platform":"console"}}` + "\n"
	for _, tt := range []struct{ line, want string }{
		{`{"type":"event","time":"2026-06-01T09:00:00Z","platformId":"7","sender":"Ada","content":"x","change":"moved"}`, `change "moved"`},
		{`{"type":"event","time":"2026-06-01T09:00:00Z","sender":"Ada","content":"","change":"deleted"}`, "needs the platformId"},
	} {
		if _, err := replay.Read(strings.NewReader(head + tt.line + "\n")); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("read %s: %v, want an error saying %s", tt.line, err, tt.want)
		}
	}
}
