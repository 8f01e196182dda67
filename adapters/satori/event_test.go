package satori

import (
	"encoding/json"
	"testing"
	"time"
)

func TestParseCreated(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"array", `[{"id":"a1","content":"x"}]`, "a1"},
		{"single", `{"id":"s1"}`, "s1"},
		{"numeric id", `[{"id":12345}]`, "12345"},
		{"older message_id", `[{"message_id":"old"}]`, "old"},
		{"empty", ``, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseCreated([]byte(tt.body))
			if err != nil || got != tt.want {
				t.Errorf("parseCreated(%s) = %q, %v; want %q", tt.body, got, err, tt.want)
			}
		})
	}
}

func FuzzConvertEvent(f *testing.F) {
	for _, s := range []string{
		`{"sn":1,"type":"message-created","login":{"platform":"qq","user":{"id":"1"}},"channel":{"id":"c","type":1},"user":{"id":"u"},"message":{"id":"m","content":"<at id=\"1\"/>hi","quote":{"id":"q"}}}`,
		`{"id":"7","type":"message-created","platform":"qq","self_id":2,"message":{"id":3,"channel":{"id":4},"elements":[{"type":"text","attrs":{"content":"x"}},{"type":"b","children":[{"type":"at","attrs":{"id":2}}]}]}}`,
		`{"type":"message-created","channel":{"id":""},"timestamp":"1700000000"}`,
		`{"sn":1e3,"message":null}`,
	} {
		f.Add([]byte(s))
	}
	a, err := New(Config{WSURL: "ws://127.0.0.1:1/v1/events"}, nil, nil)
	if err != nil {
		f.Fatal(err)
	}
	now := time.Unix(1, 0)
	f.Fuzz(func(t *testing.T, b []byte) {
		var ev wireEvent
		if json.Unmarshal(b, &ev) != nil {
			return
		}
		ch, msg, err := a.convert(&ev, now)
		if err != nil {
			return
		}
		if ch.ID == "" || msg.ChannelID != ch.ID {
			t.Fatalf("channel %q, message channel %q", ch.ID, msg.ChannelID)
		}
		if err := msg.Validate(); err != nil {
			t.Fatalf("converted message invalid: %v", err)
		}
	})
}

func BenchmarkHandleMessageEvent(b *testing.B) {
	body := []byte(`{"sn":42,"type":"message-created","timestamp":1700000000000,"login":{"sn":1,"platform":"qq","user":{"id":"10001"}},` +
		`"channel":{"id":"-100123","type":0,"name":"Tea room"},"guild":{"id":"-100123"},"user":{"id":"u1","name":"alice"},"member":{"nick":"Ali"},` +
		`"message":{"id":"m1","content":"<at id=\"10001\" name=\"Bot\"/> hello &amp; welcome <img src=\"https://x/y.png\"/> to the <b>group</b>","created_at":1700000000000}}`)
	a, err := New(Config{WSURL: "ws://127.0.0.1:1/v1/events"}, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			var ev wireEvent
			if err := json.Unmarshal(body, &ev); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode+convert", func(b *testing.B) {
		for b.Loop() {
			var ev wireEvent
			if err := json.Unmarshal(body, &ev); err != nil {
				b.Fatal(err)
			}
			if _, _, err := a.convert(&ev, now); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestRetryPolicy(t *testing.T) {
	a, err := New(Config{WSURL: "ws://127.0.0.1:1/v1/events", MinBackoff: time.Second, MaxBackoff: 4 * time.Second}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := a.retry()
	for n, window := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second} {
		for range 100 {
			if d := p.Delay(n+1, 0); d < window/2 || d > window {
				t.Fatalf("wait after failure %d = %v, want within [%v, %v]", n+1, d, window/2, window)
			}
		}
	}
}
