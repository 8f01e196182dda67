package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/state"
)

type fakeTicks []state.Tick

func (f fakeTicks) Ticks(_ context.Context, filter state.TickFilter) ([]state.Tick, error) {
	var out []state.Tick
	for _, t := range f {
		if filter.ID == 0 || t.ID == filter.ID {
			out = append(out, t)
		}
	}
	return out, nil
}

func TestCheckAdminAddr(t *testing.T) {
	tests := []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:7070", "", true},
		{"localhost:7070", "", true},
		{"[::1]:7070", "", true},
		{"0.0.0.0:7070", "", false},
		{":7070", "", false},
		{"0.0.0.0:7070", "secret", true},
		{"nonsense", "", false},
	}
	for _, tt := range tests {
		err := checkAdminAddr(tt.addr, tt.token)
		if (err == nil) != tt.ok {
			t.Errorf("checkAdminAddr(%q, %q) = %v", tt.addr, tt.token, err)
		}
	}
}

func TestAdminServer(t *testing.T) {
	m := newMetrics(func() float64 { return 3 })
	tick := state.Tick{ID: 7, ChannelID: "c1", Trigger: "message", Now: time.Now(),
		Request: []state.ChatMessage{{Role: "system", Content: "You are <b>Juni</b>\n\nAnswer in JSON."}, {Role: "user", Content: "[runtime state] quiet"}},
		Sections: []state.Section{
			{Name: "persona", Order: 10, Source: "embedded:persona.md", Cache: "static", Message: 0, Start: 0, End: 19},
			{Name: "protocol", Order: 100, Source: "embedded:protocol.md", Cache: "static", Message: 0, Start: 21, End: 36},
		},
		Raw: `{"action":"continue"}`, Action: []byte(`{"action":"continue"}`), Result: "waiting", Usage: state.Usage{PromptTokens: 100}}
	m.observe(tick)
	s := &adminServer{token: "tok", ticks: fakeTicks{tick}, metrics: m, log: zaptest.NewLogger(t), ready: func() error { return nil }}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	base := "http://" + ln.Addr().String()
	get := func(path, token string) (int, string) {
		req, _ := http.NewRequest("GET", base+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/healthz", ""); code != 200 || !strings.Contains(body, "ok") {
		t.Errorf("healthz: %d %s", code, body)
	}
	if code, _ := get("/metrics", ""); code != http.StatusUnauthorized {
		t.Errorf("metrics without token: %d", code)
	}
	code, body := get("/metrics", "tok")
	for _, want := range []string{`airi_ticks_total{trigger="message"} 1`, `airi_actions_total{action="continue"} 1`, "airi_unread_messages 3", `airi_tokens_total{kind="prompt"} 100`} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("metrics lack %q: %d\n%s", want, code, body)
		}
	}
	code, body = get("/ticks/7", "tok")
	for _, want := range []string{"<pre>You are &lt;b&gt;Juni&lt;/b&gt;</pre>", "persona · order 10 · embedded:persona.md · static",
		"<pre>Answer in JSON.</pre>", "1 · state · user", "waiting"} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("tick page lacks %q: %d\n%s", want, code, body)
		}
	}
	if code, _ := get("/ticks/8", "tok"); code != 404 {
		t.Errorf("missing tick: %d", code)
	}
	s.ready = func() error { return errors.New("telegram adapter is not connected yet") }
	if code, _ := get("/healthz", ""); code != http.StatusServiceUnavailable {
		t.Errorf("healthz while starting: %d", code)
	}
}
