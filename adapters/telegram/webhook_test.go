package telegram

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/state"
)

// memUpdates is memCursors that also remembers handled updates.
type memUpdates struct {
	memCursors
	mu     sync.Mutex
	seen   map[string]int // key -> times marked
	lookup int
}

func (u *memUpdates) UpdateSeen(_ context.Context, key string) (bool, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.lookup++
	return u.seen[key] > 0, nil
}

func (u *memUpdates) MarkUpdate(_ context.Context, key string) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.seen == nil {
		u.seen = map[string]int{}
	}
	u.seen[key]++
	return nil
}

func (u *memUpdates) marks(key string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.seen[key]
}

const secret = "s3cret-token_1"

// webhookAdapter runs an adapter in webhook mode behind an httptest
// server registered with srv; it returns the adapter and the webhook URL.
func webhookAdapter(t *testing.T, srv *telegramtest.Server, inbox *memInbox, updates *memUpdates) (*Adapter, string) {
	t.Helper()
	var a *Adapter
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.Webhook(inbox).ServeHTTP(w, r)
	}))
	t.Cleanup(hook.Close)
	var err error
	a, err = New(Config{Token: srv.Token(), APIBaseURL: srv.URL(), HTTPTimeout: 5 * time.Second,
		WebhookURL: hook.URL + "/telegram", WebhookSecret: secret}, updates, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	run(t, a, inbox)
	if err := srv.WaitWebhook(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	return a, hook.URL + "/telegram"
}

// TestWebhookDelivers registers the webhook with its secret, takes the
// updates Telegram posts (one refused delivery is posted again) and never
// polls.
func TestWebhookDelivers(t *testing.T) {
	srv := telegramtest.Start(telegramtest.Options{WebhookRetry: time.Millisecond})
	t.Cleanup(srv.Close)
	inbox := newInbox()
	fails := 1
	inbox.fail = func(ctx context.Context, msg state.Message) error {
		if msg.Content == "second" && fails > 0 {
			fails--
			return errors.New("store is down")
		}
		return nil
	}
	updates := &memUpdates{}
	_, url := webhookAdapter(t, srv, inbox, updates)
	if u, s := srv.Webhook(); u != url || s != secret {
		t.Fatalf("registered webhook %q with secret %q", u, s)
	}
	srv.Post(telegramtest.Incoming{From: ann, Text: "first"})
	srv.Post(telegramtest.Incoming{From: ann, Text: "second"})
	got := inbox.wait(t, 2)
	if got[0].Content != "first" || got[1].Content != "second" {
		t.Errorf("delivered %q, %q", got[0].Content, got[1].Content)
	}
	if err := srv.WaitDelivered(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	statuses := map[int][]int{}
	for _, d := range srv.Deliveries() {
		statuses[d.UpdateID] = append(statuses[d.UpdateID], d.Status)
	}
	if len(statuses[1]) != 1 || statuses[1][0] != 200 || len(statuses[2]) != 2 || statuses[2][0] != 500 || statuses[2][1] != 200 {
		t.Errorf("deliveries by update: %v; want update 2 refused once, then taken", statuses)
	}
	if n := srv.Calls("getUpdates"); n != 0 {
		t.Errorf("getUpdates called %d times in webhook mode", n)
	}
	if updates.marks("telegram:7000001:update:2") != 1 {
		t.Errorf("update 2 marked %d times", updates.marks("telegram:7000001:update:2"))
	}
}

// TestWebhookRequests posts requests to the handler directly: the secret
// is checked on each, nothing is stored without it, an update is handled
// once however often it comes, and a body that is not an update is
// answered 200 and skipped.
func TestWebhookRequests(t *testing.T) {
	srv := startServer(t)
	inbox := newInbox()
	updates := &memUpdates{}
	_, url := webhookAdapter(t, srv, inbox, updates)

	message := `{"update_id": 41, "message": {"message_id": 7, "date": 1700000000, "chat": {"id": 501, "type": "private", "first_name": "Ann"}, "from": {"id": 501, "is_bot": false, "first_name": "Ann"}, "text": "hello"}}`
	edited := `{"update_id": 42, "edited_message": {"message_id": 7, "date": 1700000000, "edit_date": 1700000100, "chat": {"id": 501, "type": "private", "first_name": "Ann"}, "from": {"id": 501, "is_bot": false, "first_name": "Ann"}, "text": "hello!"}}`
	tests := []struct {
		name    string
		method  string
		secret  *string
		body    string
		status  int
		stored  int // messages and edits delivered after the request
		lookups int // UpdateSeen calls so far
	}{
		{"missing secret", "POST", nil, message, 401, 0, 0},
		{"wrong secret", "POST", ptr("s3cret-token_2"), message, 401, 0, 0},
		{"secret with a different length", "POST", ptr(secret + "x"), message, 401, 0, 0},
		{"wrong method", "GET", ptr(secret), "", 405, 0, 0},
		{"not json", "POST", ptr(secret), "{not json", 200, 0, 0},
		{"no update id", "POST", ptr(secret), `{"message": {}}`, 200, 0, 0},
		{"message", "POST", ptr(secret), message, 200, 1, 1},
		{"the same update again", "POST", ptr(secret), message, 200, 1, 2},
		{"an edit", "POST", ptr(secret), edited, 200, 2, 3},
		{"the edit again", "POST", ptr(secret), edited, 200, 2, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(ctxT(t), tt.method, url, bytes.NewReader([]byte(tt.body)))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			if tt.secret != nil {
				req.Header.Set(SecretHeader, *tt.secret)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if n := len(inbox.messages()); n != tt.stored {
				t.Errorf("%d messages stored, want %d", n, tt.stored)
			}
			updates.mu.Lock()
			lookups := updates.lookup
			updates.mu.Unlock()
			if lookups != tt.lookups {
				t.Errorf("%d update lookups, want %d", lookups, tt.lookups)
			}
		})
	}
	for key, want := range map[string]int{"telegram:7000001:update:41": 1, "telegram:7000001:update:42": 1} {
		if n := updates.marks(key); n != want {
			t.Errorf("%s marked %d times, want %d", key, n, want)
		}
	}
	if inbox.dups != 0 {
		t.Errorf("%d duplicate deliveries reached the inbox", inbox.dups)
	}
}

func ptr(s string) *string { return &s }

func TestWebhookConfig(t *testing.T) {
	_, err := New(Config{Token: telegramtest.DefaultToken, WebhookURL: "https://bot.example.com/tg"}, nil, zaptest.NewLogger(t))
	if err == nil || !strings.Contains(err.Error(), "TELEGRAM_WEBHOOK_SECRET") {
		t.Errorf("a webhook without a secret: %v", err)
	}
}

// TestWebhookRefusedURL stops Run with a clear error when the Bot API
// refuses the webhook URL.
func TestWebhookRefusedURL(t *testing.T) {
	srv := startServer(t)
	a, err := New(Config{Token: srv.Token(), APIBaseURL: srv.URL(), WebhookURL: "https://bot.example.com/tg", WebhookSecret: secret},
		&memUpdates{}, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	err = a.Run(ctxT(t), newInbox())
	if err == nil || !strings.Contains(err.Error(), "TELEGRAM_WEBHOOK_URL") {
		t.Errorf("Run = %v, want the refusal of TELEGRAM_WEBHOOK_URL", err)
	}
}

// TestWebhookRefusesBeforeTheBody sends a request without the secret
// whose body trickles in: the 401 arrives before the body is sent, and
// the server closes the connection instead of waiting for the rest.
func TestWebhookRefusesBeforeTheBody(t *testing.T) {
	srv := startServer(t)
	a := newAdapter(t, srv, &memCursors{})
	a.cfg.WebhookSecret = secret
	hook := httptest.NewServer(a.Webhook(newInbox()))
	t.Cleanup(hook.Close)
	conn, err := net.Dial("tcp", hook.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Headers and the first bytes of a body announced as 2 kB (small enough that a server would wait to read it all); the rest
	// never comes.
	fmt.Fprintf(conn, "POST /telegram HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2000\r\n\r\n{\"update_id\":")
	if err := conn.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer before the body: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !resp.Close {
		t.Fatalf("status %d, close %v; want 401 and the connection closed", resp.StatusCode, resp.Close)
	}
	// The server closed its end: a read ends at once, not at the deadline.
	if n, err := conn.Read(make([]byte, 1)); err == nil {
		t.Fatalf("read %d more bytes after the 401; want the connection closed", n)
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the connection stayed open after the 401")
	}
}
