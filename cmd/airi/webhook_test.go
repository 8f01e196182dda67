package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/state/postgres/pgtest"
)

// freeAddr returns a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// roundRobin is a load balancer in front of the replicas' webhook
// listeners: each request goes to the next one.
func roundRobin(t *testing.T, addrs ...string) *httptest.Server {
	var n atomic.Uint64
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		i := n.Add(1) % uint64(len(addrs))
		r.SetURL(&url.URL{Scheme: "http", Host: addrs[i]})
	}}
	lb := httptest.NewServer(proxy)
	t.Cleanup(lb.Close)
	return lb
}

// postUpdate posts a raw update to a replica's webhook and returns the status.
func postUpdate(t *testing.T, addr string, secret *string, body string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/telegram", bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if secret != nil {
		req.Header.Set(telegramtest.SecretHeader, *secret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// countRows runs a count query on the test's schema.
func countRows(t *testing.T, dsn, query string, args ...any) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestReplicasWebhook runs two replicas in Telegram webhook mode behind a
// load balancer. The fake Bot API posts every update to the balancer;
// updates posted straight to either replica with the right secret are
// handled once, and a wrong or missing secret gets 401 with nothing stored.
func TestReplicasWebhook(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dsn := pgtest.DSN(t)
	tg := telegramtest.Start(telegramtest.Options{ReadAllGroupMessages: true})
	defer tg.Close()
	model := openaitest.NewServer(t, ackModel(telegramTexts(tg), nil))
	addrs := []string{freeAddr(t), freeAddr(t)}
	lb := roundRobin(t, addrs...)
	secret := "webhook-Secret_42"
	env := pgEnv(t, model.URL(), dsn, tg, "TELEGRAM_WEBHOOK_URL="+lb.URL+"/telegram", "TELEGRAM_WEBHOOK_SECRET="+secret)
	bots := []*botProcess{
		startBot(t, append(env, "AIRI_WEBHOOK_ADDR="+addrs[0])),
		startBot(t, append(env, "AIRI_WEBHOOK_ADDR="+addrs[1])),
	}

	// Straight to each replica: a wrong or missing secret is refused.
	update := func(id int, text string) string {
		return fmt.Sprintf(`{"update_id": %d, "message": {"message_id": %d, "date": 1700000000, "chat": {"id": 777, "type": "private", "first_name": "Eve"}, "from": {"id": 777, "is_bot": false, "first_name": "Eve"}, "text": %q}}`, id, id, text)
	}
	wrong := "webhook-Secret_43"
	for _, addr := range addrs {
		waitUntil(t, "the replica listens", bots[0], func() bool { return postUpdate(t, addr, nil, "{}") != 0 })
		for _, s := range []*string{nil, &wrong} {
			if code := postUpdate(t, addr, s, update(900001, "sneaky")); code != http.StatusUnauthorized {
				t.Errorf("%s with secret %v: status %d, want 401", addr, s, code)
			}
		}
	}
	if n := countRows(t, dsn, `SELECT count(*) FROM messages WHERE content = 'sneaky'`); n != 0 {
		t.Errorf("%d refused messages were stored", n)
	}
	// The same update to both replicas, twice each: stored once.
	for range 2 {
		for _, addr := range addrs {
			var code int
			waitUntil(t, "the replica takes the update", bots[0], func() bool {
				code = postUpdate(t, addr, &secret, update(900002, "twice over"))
				return code != http.StatusServiceUnavailable && code != 0
			})
			if code != http.StatusOK {
				t.Errorf("%s: status %d, want 200", addr, code)
			}
		}
	}
	if n := countRows(t, dsn, `SELECT count(*) FROM messages WHERE content = 'twice over'`); n != 1 {
		t.Errorf("the update posted four times was stored %d times", n)
	}
	if n := countRows(t, dsn, `SELECT count(*) FROM updates WHERE key LIKE '%:update:900002'`); n != 1 {
		t.Errorf("%d records of the handled update", n)
	}

	// Telegram's own deliveries through the balancer.
	const chats, messages = 10, 40
	for n := 1; n <= messages; n++ {
		k := n % chats
		u := telegramtest.User{ID: int64(1000 + k), FirstName: fmt.Sprint("User", k)}
		if k%2 == 0 {
			tg.Post(telegramtest.Incoming{Chat: telegramtest.PrivateChat(u), From: u, Text: fmt.Sprintf("hello tok-%d", n)})
		} else {
			g := telegramtest.Chat{ID: int64(-1001000000000 - k), Type: telegramtest.Supergroup, Title: fmt.Sprint("Group ", k)}
			tg.Post(telegramtest.Incoming{Chat: g, From: u, Text: fmt.Sprintf("@%s what about tok-%d?", tg.Bot().Username, n)})
		}
	}
	waitUntil(t, "every message is answered", bots[0], func() bool { return allAcked(ackCounts(telegramTexts(tg)()), messages) })
	for _, b := range bots {
		b.stop(t)
	}
	for k, n := range ackCounts(telegramTexts(tg)()) {
		if n != 1 {
			t.Errorf("tok-%s answered %d times", k, n)
		}
	}
	if n := tg.Calls("getUpdates"); n != 0 {
		t.Errorf("getUpdates called %d times in webhook mode", n)
	}
	if n := tg.Calls("setWebhook"); n < 2 {
		t.Errorf("setWebhook called %d times, want once by each replica", n)
	}
	byReplica := map[int]int{}
	for _, d := range tg.Deliveries() {
		byReplica[d.Status]++
	}
	t.Logf("webhook deliveries by status: %v", byReplica)
	_, problems := overlaps(t, dsn)
	for _, p := range problems {
		t.Error(p)
	}
}
