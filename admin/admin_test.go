package admin

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/admin/inspector"
	"github.com/airi-go/airi/schedule"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

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
		{"0.0.0.0:7070", "secret", false},
		{"0.0.0.0:7070", "0123456789abcde", false},
		{"0.0.0.0:7070", "0123456789abcdef", true},
		{"127.0.0.1:7070", "a", true},
		{"app.localhost:7070", "", true},
		{"nonsense", "", false},
	}
	for _, tt := range tests {
		err := CheckAddr(tt.addr, tt.token)
		if (err == nil) != tt.ok {
			t.Errorf("CheckAddr(%q, %q) = %v", tt.addr, tt.token, err)
		}
	}
}

// seedAdminStore opens an SQLite store holding one channel and one tick.
func seedAdminStore(t *testing.T) (*sqlite.Store, state.Tick) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "airi.db"), zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.UpsertChannel(ctx, state.Channel{ID: "c1", Platform: "console", Title: "Console"}); err != nil {
		t.Fatal(err)
	}
	tick := state.Tick{ChannelID: "c1", Trigger: "direct", Now: time.Now(),
		Request: []state.ChatMessage{{Role: "system", Content: "You are <b>Juni</b>\n\nAnswer in JSON."}, {Role: "user", Content: "[runtime state] quiet"}},
		Sections: []state.Section{
			{Name: "persona", Order: 10, Source: "embedded:persona.md", Cache: "static", Message: 0, Start: 0, End: 19},
			{Name: "protocol", Order: 100, Source: "embedded:protocol.md", Cache: "static", Message: 0, Start: 21, End: 36},
		},
		Raw: `{"action":"continue"}`, Action: []byte(`{"action":"continue"}`), Result: "waiting", OK: true, Usage: state.Usage{PromptTokens: 100}}
	if tick.ID, err = st.AddTick(ctx, tick); err != nil {
		t.Fatal(err)
	}
	return st, tick
}

// startAdmin serves s on a loopback port until the test ends.
func startAdmin(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return "http://" + ln.Addr().String()
}

// noRedirects is a client that reports redirects instead of following them.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

type adminReq struct {
	path   string
	header map[string]string
	form   url.Values
}

func (r adminReq) do(t *testing.T, base string) (*http.Response, string) {
	t.Helper()
	method, body := "GET", io.Reader(nil)
	if r.form != nil {
		method, body = "POST", strings.NewReader(r.form.Encode())
	}
	req, err := http.NewRequest(method, base+r.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if r.form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestAdminServer(t *testing.T) {
	m := NewMetrics(func() float64 { return 3 })
	st, tick := seedAdminStore(t)
	m.Observe(tick)
	m.Reaction("received")
	m.Reaction("received")
	m.Reaction("ignored")
	m.Media("photo", "described", 2048)
	m.Media("photo", "cached", 0)
	rc := &schedule.Counts{}
	rc.Delivered.Add(2)
	rc.Late.Add(1)
	m.RegisterReminders(rc)
	s := &Server{token: "tok", store: st, metrics: m, log: zaptest.NewLogger(t)}
	var failing atomic.Bool
	s.checks = func(context.Context) []Check {
		if failing.Load() {
			return []Check{{Name: "telegram", Detail: "not connected yet"}}
		}
		return []Check{{Name: "telegram", OK: true}}
	}
	base := startAdmin(t, s)
	bearer := map[string]string{"Authorization": "Bearer tok"}

	if resp, body := (adminReq{path: "/healthz"}).do(t, base); resp.StatusCode != 200 || !strings.Contains(body, "ok") {
		t.Errorf("healthz: %d %s", resp.StatusCode, body)
	}
	resp, body := adminReq{path: "/metrics", header: bearer}.do(t, base)
	for _, want := range []string{`airi_ticks_total{trigger="direct"} 1`, `airi_actions_total{action="continue"} 1`, "airi_unread_messages 3", `airi_tokens_total{kind="prompt"} 100`,
		`airi_reactions_total{outcome="received"} 2`, `airi_reactions_total{outcome="ignored"} 1`,
		`airi_reminders_total{event="delivered"} 2`, `airi_reminders_total{event="late"} 1`, `airi_reminders_total{event="cancelled"} 0`,
		`airi_media_total{kind="photo",outcome="described"} 1`, `airi_media_total{kind="photo",outcome="cached"} 1`, "airi_media_fetched_bytes_total 2048"} {
		if resp.StatusCode != 200 || !strings.Contains(body, want) {
			t.Errorf("metrics lack %q: %d\n%s", want, resp.StatusCode, body)
		}
	}
	resp, body = adminReq{path: fmt.Sprintf("/ticks/%d", tick.ID), header: bearer}.do(t, base)
	for _, want := range []string{"You are &lt;b&gt;Juni&lt;/b&gt;", "persona", "protocol", "waiting"} {
		if resp.StatusCode != 200 || !strings.Contains(body, want) {
			t.Errorf("tick page lacks %q: %d\n%s", want, resp.StatusCode, body)
		}
	}
	if resp, _ := (adminReq{path: "/ticks/999", header: bearer}).do(t, base); resp.StatusCode != 404 {
		t.Errorf("missing tick: %d", resp.StatusCode)
	}
	if resp, body := (adminReq{path: "/readyz"}).do(t, base); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"status":"ok"`) {
		t.Errorf("readyz: %d %s", resp.StatusCode, body)
	}
	failing.Store(true)
	if resp, body := (adminReq{path: "/readyz"}).do(t, base); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "not connected yet") {
		t.Errorf("readyz while starting: %d %s", resp.StatusCode, body)
	}
	if resp, _ := (adminReq{path: "/healthz"}).do(t, base); resp.StatusCode != http.StatusOK {
		t.Errorf("healthz of a live process that is not ready: %d", resp.StatusCode)
	}
}

// TestAdminAuth checks the token rules: a bearer header or the session
// cookie, a token in the address traded once for the cookie, the sign-in
// form, and nothing without the token.
func TestAdminAuth(t *testing.T) {
	st, _ := seedAdminStore(t)
	s := &Server{token: "tok", store: st, metrics: NewMetrics(func() float64 { return 0 }), log: zaptest.NewLogger(t)}
	base := startAdmin(t, s)
	session := adminCookie + "=" + s.sessionValue()
	html := map[string]string{"Accept": "text/html"}

	tests := []struct {
		name     string
		req      adminReq
		code     int
		location string // the redirect's target, when code is a redirect
		cookie   bool   // the response sets the session cookie
	}{
		{name: "no token", req: adminReq{path: "/"}, code: 401},
		{name: "metrics without token", req: adminReq{path: "/metrics"}, code: 401},
		{name: "browser without token goes to the form", req: adminReq{path: "/channels/c1?outcome=sent", header: html}, code: 303, location: "/login?next=%2Fchannels%2Fc1%3Foutcome%3Dsent"},
		{name: "wrong bearer", req: adminReq{path: "/", header: map[string]string{"Authorization": "Bearer nope"}}, code: 401},
		{name: "bearer", req: adminReq{path: "/", header: map[string]string{"Authorization": "Bearer tok"}}, code: 200},
		{name: "session cookie", req: adminReq{path: "/search", header: map[string]string{"Cookie": session}}, code: 200},
		{name: "forged cookie", req: adminReq{path: "/", header: map[string]string{"Cookie": adminCookie + "=tok"}}, code: 401},
		{name: "token in the address becomes a cookie", req: adminReq{path: "/channels/c1?token=tok&outcome=sent"}, code: 303, location: "/channels/c1?outcome=sent", cookie: true},
		{name: "wrong token in the address", req: adminReq{path: "/?token=nope"}, code: 401},
		{name: "form", req: adminReq{path: "/login?next=/channels/c1"}, code: 200},
		{name: "sign in", req: adminReq{path: "/login", form: url.Values{"token": {"tok"}, "next": {"/channels/c1"}}}, code: 303, location: "/channels/c1", cookie: true},
		{name: "sign in never leaves the server", req: adminReq{path: "/login", form: url.Values{"token": {"tok"}, "next": {"//evil.example/"}}}, code: 303, location: "/", cookie: true},
		{name: "sign in with a wrong token", req: adminReq{path: "/login", form: url.Values{"token": {"nope"}, "next": {"/"}}}, code: 401},
		{name: "static files are public", req: adminReq{path: "/static/inspector.css"}, code: 200},
		{name: "health is public", req: adminReq{path: "/healthz"}, code: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := tt.req.do(t, base)
			if resp.StatusCode != tt.code {
				t.Fatalf("status %d, want %d\n%s", resp.StatusCode, tt.code, body)
			}
			if got := resp.Header.Get("Location"); got != tt.location {
				t.Errorf("Location %q, want %q", got, tt.location)
			}
			var set bool
			for _, c := range resp.Cookies() {
				if c.Name == adminCookie {
					set = true
					if c.Value != s.sessionValue() || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || strings.Contains(c.Value, "tok") {
						t.Errorf("session cookie %+v", c)
					}
				}
			}
			if set != tt.cookie {
				t.Errorf("cookie set = %v, want %v", set, tt.cookie)
			}
		})
	}
}

// TestAdminLoopbackOpen checks that without a token (loopback only) the
// pages need nothing.
func TestAdminLoopbackOpen(t *testing.T) {
	st, _ := seedAdminStore(t)
	base := startAdmin(t, &Server{store: st, metrics: NewMetrics(func() float64 { return 0 }), log: zaptest.NewLogger(t)})
	for _, path := range []string{"/", "/channels/c1", "/search?q=x", "/metrics"} {
		if resp, body := (adminReq{path: path}).do(t, base); resp.StatusCode != 200 {
			t.Errorf("%s: %d %s", path, resp.StatusCode, body)
		}
	}
}

// TestChannelBadges checks what the channels page says of a channel's
// attention mode and budget.
func TestChannelBadges(t *testing.T) {
	ctx := context.Background()
	st, _ := seedAdminStore(t)
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	policy := attention.Policy{Default: attention.Defaults(), Channels: map[string]attention.Settings{"g2": {Mode: attention.ModeAddressed}}}
	tracker := budget.New(budget.Config{ChannelDaily: 1000, Channels: map[string]int64{"g2": 100}, Location: time.UTC}, st, zaptest.NewLogger(t), nil)
	for ch, n := range map[string]int64{"g1": 300, "g2": 90} {
		release, ok, err := tracker.Admit(ctx, ch, now, 0)
		if !ok || err != nil {
			t.Fatalf("admit %s: %v %v", ch, ok, err)
		}
		release(n)
	}
	tests := []struct {
		ch      state.Channel
		tracker *budget.Tracker
		want    []inspector.Badge
	}{
		{state.Channel{ID: "g1", Group: true}, tracker, []inspector.Badge{{Label: "mode", Value: "ambient"}, {Label: "budget", Value: "30% of 1000 today"}}},
		{state.Channel{ID: "g2", Group: true}, tracker, []inspector.Badge{{Label: "mode", Value: "addressed"}, {Label: "budget", Value: "90% of 100 today", Warn: true}}},
		{state.Channel{ID: "d1"}, tracker, []inspector.Badge{{Label: "budget", Value: "0% of 1000 today"}}},
		{state.Channel{ID: "d1"}, nil, nil},
	}
	for _, tt := range tests {
		got := ChannelBadges(policy, tt.tracker, func() time.Time { return now })(ctx, tt.ch)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("badges of %s = %+v, want %+v", tt.ch.ID, got, tt.want)
		}
	}
}
