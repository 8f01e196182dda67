package satori_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/adapters/satori"
	"github.com/airi-go/airi/adapters/satori/satoritest"
	"github.com/airi-go/airi/state"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// delivery is one Deliver call.
type delivery struct {
	ch  state.Channel
	msg state.Message
}

// inbox records deliveries. hook, when set, runs before a delivery is
// recorded; an error from it refuses the delivery.
type inbox struct {
	mu      sync.Mutex
	changed chan struct{}
	got     []delivery
	hook    func(msg state.Message) error
}

func newInbox() *inbox { return &inbox{changed: make(chan struct{})} }

func (in *inbox) Deliver(ctx context.Context, ch state.Channel, msg state.Message) error {
	if ch.ID != msg.ChannelID {
		return fmt.Errorf("channel %q but message channel %q", ch.ID, msg.ChannelID)
	}
	if err := msg.Validate(); err != nil {
		return err
	}
	in.mu.Lock()
	hook := in.hook
	in.mu.Unlock()
	if hook != nil {
		if err := hook(msg); err != nil {
			return err
		}
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.got = append(in.got, delivery{ch, msg})
	close(in.changed)
	in.changed = make(chan struct{})
	return nil
}

// wait blocks until n deliveries were recorded.
func (in *inbox) wait(t *testing.T, n int) []delivery {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		in.mu.Lock()
		got, ch := slices.Clone(in.got), in.changed
		in.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-ctx.Done():
			t.Fatalf("got %d deliveries, want %d: %+v", len(got), n, got)
		case <-ch:
		}
	}
}

type cursors struct {
	mu      sync.Mutex
	m       map[string]string
	changed chan struct{}
}

// wait blocks until key holds want.
func (c *cursors) wait(t *testing.T, key, want string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		c.mu.Lock()
		if c.changed == nil {
			c.changed = make(chan struct{})
		}
		got, ch := c.m[key], c.changed
		c.mu.Unlock()
		if got == want {
			return
		}
		select {
		case <-timeout:
			t.Fatalf("cursor %s = %q, want %q", key, got, want)
		case <-ch:
		}
	}
}

func (c *cursors) Cursor(ctx context.Context, key string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key], nil
}

func (c *cursors) SetCursor(ctx context.Context, key, value string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]string{}
	}
	c.m[key] = value
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
	return nil
}

func testConfig(srv *satoritest.Server) satori.Config {
	return satori.Config{
		WSURL:        srv.WSURL(),
		PingInterval: time.Hour,
		HTTPTimeout:  5 * time.Second,
		MinBackoff:   time.Millisecond,
		MaxBackoff:   10 * time.Millisecond,
	}
}

// start runs an adapter until the test ends and waits until it is ready.
func start(t *testing.T, cfg satori.Config, cur adapters.Cursors, in adapters.Inbox) *satori.Adapter {
	t.Helper()
	a, err := satori.New(cfg, cur, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, in) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run returned %v after cancel, want nil", err)
		}
	})
	select {
	case <-a.Ready():
	case err := <-done:
		done <- nil // for the cleanup
		t.Fatalf("Run ended before ready: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("adapter not ready")
	}
	return a
}

func waitServer(t *testing.T, srv *satoritest.Server, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.WaitFor(ctx, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

var revisions = []struct {
	name string
	rev  satoritest.Revision
}{{"current", satoritest.Current}, {"legacy", satoritest.Legacy}}

func TestReceiveAndReply(t *testing.T) {
	for _, rv := range revisions {
		t.Run(rv.name, func(t *testing.T) {
			srv := satoritest.NewServer(satoritest.Options{Revision: rv.rev, Token: "tok"})
			defer srv.Close()
			cfg := testConfig(srv)
			cfg.Token = "tok"
			in := newInbox()
			a := start(t, cfg, &cursors{}, in)

			at := time.Date(2026, 3, 4, 5, 6, 7, 890e6, time.UTC)
			srv.PushMessage(satoritest.Message{
				ID: "m1", ChannelID: "-100123", GuildID: "-100123", GuildName: "Tea room",
				UserID: "u1", UserName: "alice99", UserNick: "Alice", MemberNick: "Ali (admin)",
				Content: `<at id="bot" name="Bot"/> is 1 &lt; 2 &amp;&amp; <img src="x.png"/>?`, Time: at,
			})
			srv.PushMessage(satoritest.Message{
				ID: "m2", ChannelID: "private:u2", Direct: true, UserID: "u2", UserName: "Bob",
				Content: `<quote id="m0"/>thanks`,
			})
			srv.PushMessage(satoritest.Message{
				ID: "m3", ChannelID: "-100123", GuildID: "-100123", UserID: "u3", UserName: "Echo", UserIsBot: true,
				Content: "pong", QuoteID: "b1", QuoteUserID: "bot",
			})
			got := in.wait(t, 3)
			if e := got[2].msg; !e.FromBot || !e.ReplyToSelf || got[0].msg.FromBot || got[0].msg.ReplyToSelf || got[1].msg.ReplyToSelf {
				t.Errorf("reply of another bot to ours: FromBot = %v, ReplyToSelf = %v; first two %+v %+v", e.FromBot, e.ReplyToSelf, got[0].msg, got[1].msg)
			}

			g := got[0]
			wantCh := state.Channel{ID: "-100123", Platform: "satori", NativeID: "-100123", Group: true, Title: "Tea room", Members: []string{"Ali (admin)"}}
			if fmt.Sprint(g.ch) != fmt.Sprint(wantCh) {
				t.Errorf("channel = %+v, want %+v", g.ch, wantCh)
			}
			if g.msg.Content != "@Bot is 1 < 2 && ?" || !g.msg.Mentioned || g.msg.Self ||
				len(g.msg.Media) != 1 || g.msg.Media[0].Kind != state.MediaPhoto ||
				g.msg.SenderName != "Ali (admin)" || g.msg.SenderID != "test:u1" || g.msg.PlatformID != "m1" || !g.msg.Time.Equal(at) {
				t.Errorf("group message = %+v", g.msg)
			}
			d := got[1]
			if d.ch.Group || d.ch.ID != "private:u2" || d.ch.Title != "Bob" {
				t.Errorf("direct channel = %+v", d.ch)
			}
			if d.msg.Content != "thanks" || d.msg.ReplyTo != "m0" || d.msg.Mentioned || d.msg.SenderName != "Bob" {
				t.Errorf("direct message = %+v", d.msg)
			}

			id, err := a.Send(context.Background(), state.Outgoing{ChannelID: "-100123", Content: `yes <b>"1<2"</b> & more`, ReplyTo: "m1"})
			if err != nil {
				t.Fatal(err)
			}
			sent := srv.Sent()
			if len(sent) != 1 {
				t.Fatalf("sent %d messages, want 1", len(sent))
			}
			s := sent[0]
			if id != s.ID || s.ChannelID != "-100123" || s.Platform != "test" || s.UserID != "bot" ||
				s.Authorization != "Bearer tok" || s.ContentType != "application/json" {
				t.Errorf("send = %q, server saw %+v", id, s)
			}
			if want := `<quote id="m1"/>yes &lt;b&gt;&quot;1&lt;2&quot;&lt;/b&gt; &amp; more`; s.Content != want {
				t.Errorf("content = %q, want %q", s.Content, want)
			}
		})
	}
}

func TestOwnMessagesAreSelf(t *testing.T) {
	srv := satoritest.NewServer(satoritest.Options{Echo: true, SingleObject: true})
	defer srv.Close()
	in := newInbox()
	a := start(t, testConfig(srv), &cursors{}, in)
	id, err := a.Send(context.Background(), state.Outgoing{ChannelID: "g1", Content: "hello <at id=\"bot\"/>"})
	if err != nil {
		t.Fatal(err)
	}
	got := in.wait(t, 1)[0]
	if !got.msg.Self || got.msg.Mentioned || got.msg.PlatformID != id || got.msg.Content != `hello <at id="bot"/>` {
		t.Errorf("echo = %+v (sent id %q)", got.msg, id)
	}
	if len(got.ch.Members) != 0 {
		t.Errorf("the bot counted as member: %v", got.ch.Members)
	}
}

// The connection drops while a message is being stored; the events pushed
// meanwhile are replayed after the resume, each delivered exactly once.
func TestReconnectResumes(t *testing.T) {
	for _, rv := range revisions {
		t.Run(rv.name, func(t *testing.T) {
			srv := satoritest.NewServer(satoritest.Options{Revision: rv.rev})
			defer srv.Close()
			in := newInbox()
			cur := &cursors{}
			release := make(chan struct{})
			in.hook = func(msg state.Message) error {
				if msg.PlatformID == "m3" {
					<-release
				}
				return nil
			}
			a := start(t, testConfig(srv), cur, in)
			for i := 1; i <= 3; i++ {
				srv.PushMessage(satoritest.Message{ID: fmt.Sprintf("m%d", i), ChannelID: "c", GuildID: "g", UserID: "u", Content: "x"})
			}
			in.wait(t, 2)
			srv.DropConnections()
			for i := 4; i <= 6; i++ {
				srv.PushMessage(satoritest.Message{ID: fmt.Sprintf("m%d", i), ChannelID: "c", GuildID: "g", UserID: "u", Content: "x"})
			}
			close(release)
			in.wait(t, 6)
			waitServer(t, srv, "reconnect", func() bool { return srv.Connections() == 1 })
			srv.PushMessage(satoritest.Message{ID: "m7", ChannelID: "c", GuildID: "g", UserID: "u", Content: "x"})
			got := in.wait(t, 7)

			var ids []string
			for _, d := range got {
				ids = append(ids, d.msg.PlatformID)
			}
			if want := []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7"}; !slices.Equal(ids, want) {
				t.Errorf("delivered %v, want %v", ids, want)
			}
			idents := srv.Identifies()
			if len(idents) < 2 {
				t.Fatalf("identifies = %+v, want a second one", idents)
			}
			if r := idents[1]; r.SN == nil || *r.SN != 3 || r.Sequence == nil || *r.Sequence != 3 {
				t.Errorf("resume identify = %+v, want sn and sequence 3", r)
			}
			cur.wait(t, a.CursorKey(), "7")
		})
	}
}

// A message the inbox refuses is not confirmed: it comes again after the
// resume.
func TestRefusedDeliveryIsReceivedAgain(t *testing.T) {
	srv := satoritest.NewServer(satoritest.Options{})
	defer srv.Close()
	in := newInbox()
	failed := false
	in.hook = func(msg state.Message) error {
		if msg.PlatformID == "m2" && !failed {
			failed = true
			return errors.New("disk full")
		}
		return nil
	}
	start(t, testConfig(srv), &cursors{}, in)
	for i := 1; i <= 3; i++ {
		srv.PushMessage(satoritest.Message{ID: fmt.Sprintf("m%d", i), ChannelID: "c", UserID: "u", Content: "x"})
	}
	got := in.wait(t, 3)
	var ids []string
	for _, d := range got {
		ids = append(ids, d.msg.PlatformID)
	}
	if !slices.Equal(ids, []string{"m1", "m2", "m3"}) {
		t.Errorf("delivered %v", ids)
	}
}

func TestRestartResumesFromStoredCursor(t *testing.T) {
	srv := satoritest.NewServer(satoritest.Options{})
	defer srv.Close()
	cur := &cursors{}
	cfg := testConfig(srv)

	a, err := satori.New(cfg, cur, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	first := newInbox()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, first) }()
	<-a.Ready()
	srv.PushMessage(satoritest.Message{ID: "m1", ChannelID: "c", UserID: "u", Content: "one"})
	srv.PushMessage(satoritest.Message{ID: "m2", ChannelID: "c", UserID: "u", Content: "two"})
	first.wait(t, 2)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
	waitServer(t, srv, "disconnect", func() bool { return srv.Connections() == 0 })
	srv.PushMessage(satoritest.Message{ID: "m3", ChannelID: "c", UserID: "u", Content: "three"})

	second := newInbox()
	start(t, cfg, cur, second)
	second.wait(t, 1)
	srv.PushMessage(satoritest.Message{ID: "m4", ChannelID: "c", UserID: "u", Content: "four"})
	got := second.wait(t, 2)
	if len(got) != 2 || got[0].msg.PlatformID != "m3" || got[1].msg.PlatformID != "m4" {
		t.Errorf("after restart delivered %+v, want m3 m4", got)
	}
	idents := srv.Identifies()
	if last := idents[len(idents)-1]; last.SN == nil || *last.SN != 2 {
		t.Errorf("restart identify = %+v, want sn 2", last)
	}
	if idents[0].SN != nil || idents[0].Sequence != nil {
		t.Errorf("first identify without a cursor sent a position: %+v", idents[0])
	}
}

func TestDeadConnectionWithoutPong(t *testing.T) {
	srv := satoritest.NewServer(satoritest.Options{})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.PingInterval = 5 * time.Millisecond
	cfg.PongTimeout = 200 * time.Millisecond
	in := newInbox()
	start(t, cfg, &cursors{}, in)
	waitServer(t, srv, "pings answered", func() bool { return srv.Pings() >= 3 })
	if n := len(srv.Identifies()); n != 1 {
		t.Fatalf("answered pings caused %d identifies, want 1", n)
	}
	srv.StopPongs(true)
	waitServer(t, srv, "reconnect after missing pong", func() bool { return len(srv.Identifies()) >= 2 })
	srv.StopPongs(false)
	waitServer(t, srv, "connection", func() bool { return srv.Connections() == 1 })
	srv.PushMessage(satoritest.Message{ID: "after", ChannelID: "c", UserID: "u", Content: "still here"})
	if got := in.wait(t, 1); got[0].msg.Content != "still here" {
		t.Errorf("delivered %+v", got)
	}
}

func TestSendRetries(t *testing.T) {
	for _, rv := range revisions {
		t.Run(rv.name, func(t *testing.T) {
			srv := satoritest.NewServer(satoritest.Options{Revision: rv.rev})
			defer srv.Close()
			a := start(t, testConfig(srv), &cursors{}, newInbox())
			ctx := context.Background()
			out := state.Outgoing{ChannelID: "c", Content: "hi"}

			srv.FailSends(1, 500, "upstream exploded")
			if _, err := a.Send(ctx, out); err != nil {
				t.Fatalf("500 then success: %v", err)
			}
			if n := len(srv.Sent()); n != 1 {
				t.Fatalf("sent %d, want 1", n)
			}

			srv.FailSends(3, 503, "still down")
			_, err := a.Send(ctx, out)
			var ae *satori.APIError
			if !errors.As(err, &ae) || ae.Status != 503 || !strings.Contains(err.Error(), "still down") || errors.Is(err, state.ErrOutcomeUnknown) {
				t.Fatalf("persistent 503: err = %v", err)
			}

			// A 4xx is not retried: the second queued failure is left for
			// the next send.
			srv.FailSends(2, 400, "channel not found")
			_, err = a.Send(ctx, out)
			if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(err.Error(), "channel not found") {
				t.Fatalf("400: err = %v", err)
			}
			if _, err := a.Send(ctx, out); err == nil {
				t.Fatal("second queued 400 was consumed by a retry")
			}
			if _, err := a.Send(ctx, out); err != nil {
				t.Fatal(err)
			}
			if n := len(srv.Sent()); n != 2 {
				t.Errorf("sent %d, want 2", n)
			}
		})
	}
}

func TestSendOutcomeUnknownIsNotRetried(t *testing.T) {
	srv := satoritest.NewServer(satoritest.Options{})
	defer srv.Close()
	cfg := testConfig(srv)
	a := start(t, cfg, &cursors{}, newInbox())
	srv.HangSends(1)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := a.Send(ctx, state.Outgoing{ChannelID: "c", Content: "maybe"})
	if !errors.Is(err, state.ErrOutcomeUnknown) {
		t.Fatalf("err = %v, want ErrOutcomeUnknown", err)
	}
	if n := len(srv.Sent()); n != 1 {
		t.Errorf("server received %d sends, want exactly 1", n)
	}
}

func TestSendConnectionRefusedIsRetried(t *testing.T) {
	srv := satoritest.NewServer(satoritest.Options{})
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	cfg := testConfig(srv)
	cfg.APIBaseURL = closed
	a := start(t, cfg, &cursors{}, newInbox())
	_, err = a.Send(context.Background(), state.Outgoing{ChannelID: "c", Content: "x"})
	if err == nil || errors.Is(err, state.ErrOutcomeUnknown) || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("err = %v, want a definite failure naming the refused connection", err)
	}
}

func TestSeveralLogins(t *testing.T) {
	srv := satoritest.NewServer(satoritest.Options{Logins: []satoritest.Login{
		{Platform: "qq", UserID: "10001", Name: "QBot"},
		{Platform: "discord", UserID: "d-bot", Name: "DBot"},
	}})
	defer srv.Close()
	in := newInbox()
	a := start(t, testConfig(srv), &cursors{}, in)
	if ls := a.Logins(); len(ls) != 2 || ls[1] != (satori.Login{Platform: "discord", SelfID: "d-bot", Name: "DBot", Status: 1}) {
		t.Errorf("logins = %+v", ls)
	}
	srv.PushMessage(satoritest.Message{ID: "x", ChannelID: "555", GuildID: "555", UserID: "u", Content: `<at id="d-bot"/> hey`, Login: 1})
	got := in.wait(t, 1)[0]
	if got.ch.ID != "discord:555" || got.ch.NativeID != "555" || !got.msg.Mentioned {
		t.Errorf("delivered %+v / %+v", got.ch, got.msg)
	}
	ctx := context.Background()
	for _, tc := range []struct{ id, platform, user, channel string }{
		{"discord:555", "discord", "d-bot", "555"},
		{"qq:private:42", "qq", "10001", "private:42"},
	} {
		if _, err := a.Send(ctx, state.Outgoing{ChannelID: tc.id, Content: "x"}); err != nil {
			t.Fatalf("send %s: %v", tc.id, err)
		}
		s := srv.Sent()
		last := s[len(s)-1]
		if last.Platform != tc.platform || last.UserID != tc.user || last.ChannelID != tc.channel {
			t.Errorf("send %s went out as %+v", tc.id, last)
		}
	}
	if _, err := a.Send(ctx, state.Outgoing{ChannelID: "telegram:1", Content: "x"}); err == nil || !strings.Contains(err.Error(), "qq, discord") {
		t.Errorf("unknown platform: err = %v", err)
	}
}

func TestLongContentIsCut(t *testing.T) {
	srv := satoritest.NewServer(satoritest.Options{})
	defer srv.Close()
	in := newInbox()
	start(t, testConfig(srv), &cursors{}, in)
	srv.PushMessage(satoritest.Message{ChannelID: "c", UserID: "u", Content: strings.Repeat("長", state.MaxContentBytes)})
	got := in.wait(t, 1)[0].msg.Content
	if len(got) > state.MaxContentBytes || !strings.HasSuffix(got, "truncated]") {
		t.Errorf("content of %d bytes ending %q", len(got), got[len(got)-20:])
	}
}

func TestConnectFailsAtOnce(t *testing.T) {
	srv := satoritest.NewServer(satoritest.Options{Token: "right"})
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "ws://" + ln.Addr().String() + "/satori/v1/events"
	ln.Close()
	tests := []struct {
		name, url, token, want string
	}{
		{"bad token", srv.WSURL(), "wrong", "token"},
		{"refused", refused, "", "refused"},
		{"not found", strings.Replace(srv.WSURL(), "/v1/events", "/v2/events", 1), "", "404"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(srv)
			cfg.WSURL, cfg.Token = tt.url, tt.token
			a, err := satori.New(cfg, &cursors{}, zaptest.NewLogger(t))
			if err != nil {
				t.Fatal(err)
			}
			err = a.Run(context.Background(), newInbox())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Run = %v, want an error mentioning %q", err, tt.want)
			}
		})
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []satori.Config{
		{},
		{WSURL: "127.0.0.1:5140"},
		{WSURL: "ftp://x/events"},
		{WSURL: "ws://x/events", APIBaseURL: "x"},
	} {
		if _, err := satori.New(cfg, nil, nil); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}

func TestDeriveAPIBaseURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ws://127.0.0.1:5140/satori/v1/events", "http://127.0.0.1:5140/satori/v1"},
		{"wss://bot.example/v1/events/", "https://bot.example/v1"},
		{"ws://h:1/v1", "http://h:1/v1"},
	}
	for _, tt := range tests {
		got, err := satori.DeriveAPIBaseURL(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("DeriveAPIBaseURL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestSendBeforeReady(t *testing.T) {
	a, err := satori.New(satori.Config{WSURL: "ws://127.0.0.1:1/v1/events"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(context.Background(), state.Outgoing{ChannelID: "c", Content: "x"}); !errors.Is(err, satori.ErrNotReady) {
		t.Errorf("err = %v, want ErrNotReady", err)
	}
}

// A slow delivery longer than the PONG timeout does not count against the
// connection: frames are not read while a message is being stored.
func TestSlowDeliveryKeepsConnection(t *testing.T) {
	srv := satoritest.NewServer(satoritest.Options{})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.PingInterval = time.Millisecond
	cfg.PongTimeout = 100 * time.Millisecond
	in := newInbox()
	in.hook = func(msg state.Message) error {
		if msg.PlatformID == "slow" {
			<-time.After(5 * cfg.PongTimeout) // a store stuck on a lock
		}
		return nil
	}
	start(t, cfg, &cursors{}, in)
	srv.PushMessage(satoritest.Message{ID: "slow", ChannelID: "c", UserID: "u", Content: "x"})
	srv.PushMessage(satoritest.Message{ID: "next", ChannelID: "c", UserID: "u", Content: "y"})
	in.wait(t, 2)
	if n := len(srv.Identifies()); n != 1 {
		t.Errorf("slow delivery caused %d identifies, want 1", n)
	}
}

// Servers built on Satori 3 send the element tree instead of content;
// other event types are skipped but still advance the cursor.
func TestElementTreeAndOtherEvents(t *testing.T) {
	srv := satoritest.NewServer(satoritest.Options{Revision: satoritest.Legacy})
	defer srv.Close()
	in := newInbox()
	cur := &cursors{}
	a := start(t, testConfig(srv), cur, in)
	srv.PushEvent("guild-member-added", 0, map[string]any{"guild": map[string]any{"id": "g"}, "user": map[string]any{"id": "u9"}})
	srv.PushEvent("message-created", 0, map[string]any{
		"channel": map[string]any{"id": "g", "type": 0},
		"guild":   map[string]any{"id": "g"},
		"user":    map[string]any{"id": "u1", "name": "Ann"},
		"message": map[string]any{"id": "e1", "elements": []any{
			map[string]any{"type": "at", "attrs": map[string]any{"id": "bot", "name": "Bot"}, "children": []any{}},
			map[string]any{"type": "text", "attrs": map[string]any{"content": " 1 < 2 & "}, "children": []any{}},
			map[string]any{"type": "img", "attrs": map[string]any{"src": "https://x/y.png", "width": 100}, "children": []any{}},
			map[string]any{"type": "b", "attrs": map[string]any{}, "children": []any{
				map[string]any{"type": "text", "attrs": map[string]any{"content": "bold"}, "children": []any{}},
			}},
		}},
	})
	got := in.wait(t, 1)
	if m := got[0].msg; m.Content != "@Bot 1 < 2 & bold" || !m.Mentioned || m.PlatformID != "e1" ||
		len(m.Media) != 1 || m.Media[0].FileID != "https://x/y.png" || m.Media[0].Width != 100 {
		t.Errorf("message from elements = %+v", m)
	}
	cur.wait(t, a.CursorKey(), "2")
}

// TestSendWithoutTheConnection sends from an adapter that never connects,
// as a replica that does not hold the event stream does: it uses the
// logins the connected adapter stored, and before any were stored it is
// not ready.
func TestSendWithoutTheConnection(t *testing.T) {
	srv := satoritest.NewServer(satoritest.Options{Logins: []satoritest.Login{
		{Platform: "qq", UserID: "10001", Name: "QBot"},
		{Platform: "discord", UserID: "d-bot", Name: "DBot"},
	}})
	defer srv.Close()
	shared := &cursors{}
	other, err := satori.New(testConfig(srv), shared, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := other.Send(ctx, state.Outgoing{ChannelID: "discord:555", Content: "x"}); !errors.Is(err, satori.ErrNotReady) {
		t.Fatalf("before any login was stored: err = %v, want ErrNotReady", err)
	}
	start(t, testConfig(srv), shared, newInbox())
	for _, tc := range []struct{ id, platform, user, channel string }{
		{"discord:555", "discord", "d-bot", "555"},
		{"qq:private:42", "qq", "10001", "private:42"},
	} {
		if _, err := other.Send(ctx, state.Outgoing{ChannelID: tc.id, Content: "from another replica"}); err != nil {
			t.Fatalf("send %s: %v", tc.id, err)
		}
		s := srv.Sent()
		last := s[len(s)-1]
		if last.Platform != tc.platform || last.UserID != tc.user || last.ChannelID != tc.channel {
			t.Errorf("send %s went out as %+v", tc.id, last)
		}
	}
	if n := srv.Connections(); n != 1 {
		t.Errorf("%d connections to the event stream, want the one of the connected adapter", n)
	}
}
