package telegramtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

type apiAnswer struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Parameters  struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`
}

func call(t *testing.T, ctx context.Context, base, token, method string, body any) apiAnswer {
	t.Helper()
	a, err := callErr(ctx, base, token, method, body)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// callErr makes one Bot API call; it is safe in goroutines other than the
// test's own.
func callErr(ctx context.Context, base, token, method string, body any) (apiAnswer, error) {
	var a apiAnswer
	raw, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/bot"+token+"/"+method, bytes.NewReader(raw))
	if err != nil {
		return a, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return a, err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		return a, err
	}
	if a.ErrorCode != 0 && a.ErrorCode != resp.StatusCode {
		return a, fmt.Errorf("error_code %d with HTTP status %d", a.ErrorCode, resp.StatusCode)
	}
	return a, nil
}

type answerOrErr struct {
	a   apiAnswer
	err error
}

// pollAsync starts a long poll and returns where its answer arrives.
func pollAsync(ctx context.Context, s *Server, timeout int) <-chan answerOrErr {
	ch := make(chan answerOrErr, 1)
	go func() {
		a, err := callErr(ctx, s.URL(), s.Token(), "getUpdates", map[string]any{"timeout": timeout})
		ch <- answerOrErr{a, err}
	}()
	return ch
}

func start(t *testing.T) *Server {
	s := Start(Options{})
	t.Cleanup(func() {
		s.Close()
		http.DefaultClient.CloseIdleConnections()
	})
	return s
}

func updateIDs(t *testing.T, a apiAnswer) []int {
	t.Helper()
	var us []Update
	if err := json.Unmarshal(a.Result, &us); err != nil {
		t.Fatal(err)
	}
	ids := []int{}
	for _, u := range us {
		ids = append(ids, u.UpdateID)
	}
	return ids
}

func TestOffsetSemantics(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	u := User{ID: 1, FirstName: "U"}
	for range 3 {
		s.Post(Incoming{From: u, Text: "x"})
	}
	steps := []struct {
		offset int
		want   string
	}{
		{0, "[1,2,3]"}, // unconfirmed updates come back
		{0, "[1,2,3]"}, // still, until an offset passes them
		{2, "[2,3]"},   // confirms 1
		{0, "[2,3]"},   // 1 is gone for good
		{-1, "[3]"},    // only the last one
		{4, "[]"},      // all confirmed; timeout 0 answers at once
	}
	for _, st := range steps {
		a := call(t, ctx, s.URL(), s.Token(), "getUpdates", map[string]any{"offset": st.offset})
		if got := jsonInts(updateIDs(t, a)); got != st.want {
			t.Fatalf("offset %d: updates %s, want %s", st.offset, got, st.want)
		}
	}
	if len(s.Pending()) != 0 {
		t.Fatalf("pending %v", s.Pending())
	}
}

func jsonInts(v []int) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestLongPollAnswersWhenAnUpdateArrives(t *testing.T) {
	s := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := pollAsync(ctx, s, 50)
	if err := s.WaitCalls(ctx, "getUpdates", 1); err != nil {
		t.Fatal(err)
	}
	s.Post(Incoming{From: User{ID: 1, FirstName: "U"}, Text: "wake up"})
	r := <-got
	if r.err != nil {
		t.Fatalf("long poll did not answer when an update was queued: %v", r.err)
	}
	if ids := updateIDs(t, r.a); len(ids) != 1 {
		t.Fatalf("updates %v", ids)
	}
}

func TestNewerPollEndsOlderWithConflict(t *testing.T) {
	s := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first := pollAsync(ctx, s, 50)
	if err := s.WaitCalls(ctx, "getUpdates", 1); err != nil {
		t.Fatal(err)
	}
	call(t, ctx, s.URL(), s.Token(), "getUpdates", map[string]any{"timeout": 0})
	if r := <-first; r.err != nil || r.a.ErrorCode != http.StatusConflict {
		t.Fatalf("older poll answered %+v, %v; want 409", r.a, r.err)
	}
}

func TestSendMessageChecks(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	chat := Chat{ID: -100500, Type: Supergroup, Title: "G"}
	s.Post(Incoming{Chat: chat, From: User{ID: 1, FirstName: "U"}, Text: "x"})
	tests := []struct {
		name string
		body map[string]any
		code int
		desc string
	}{
		{"ok html", map[string]any{"chat_id": -100500, "text": "<b>hi</b> &amp;", "parse_mode": "HTML"}, 0, ""},
		{"bad html", map[string]any{"chat_id": -100500, "text": "<b>hi", "parse_mode": "HTML"}, 400, "can't parse entities"},
		{"bare amp", map[string]any{"chat_id": -100500, "text": "a & b", "parse_mode": "HTML"}, 400, "can't parse entities"},
		{"amp ok without parse mode", map[string]any{"chat_id": -100500, "text": "a & b"}, 0, ""},
		{"unknown chat", map[string]any{"chat_id": 42, "text": "x"}, 400, "chat not found"},
		{"empty", map[string]any{"chat_id": -100500, "text": " "}, 400, "message text is empty"},
		{"too long", map[string]any{"chat_id": -100500, "text": strings.Repeat("😀", 2049)}, 400, "message is too long"},
		{"missing reply", map[string]any{"chat_id": -100500, "text": "x", "reply_parameters": map[string]any{"message_id": 99}}, 400, "replied not found"},
		{"missing reply allowed", map[string]any{"chat_id": -100500, "text": "x",
			"reply_parameters": map[string]any{"message_id": 99, "allow_sending_without_reply": true}}, 0, ""},
		{"reply", map[string]any{"chat_id": -100500, "text": "x", "reply_parameters": map[string]any{"message_id": 1}}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := call(t, ctx, s.URL(), s.Token(), "sendMessage", tt.body)
			if a.ErrorCode != tt.code || !strings.Contains(a.Description, tt.desc) {
				t.Fatalf("answer %d %q, want %d %q", a.ErrorCode, a.Description, tt.code, tt.desc)
			}
		})
	}
	sent := s.Sent()
	if len(sent) != 4 || sent[0].Text != "hi &" || sent[0].MessageID != 2 || sent[3].ReplyTo != 1 || sent[2].ReplyTo != 0 {
		t.Fatalf("sent %+v", sent)
	}
}

func TestFaultsAndToken(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	if a := call(t, ctx, s.URL(), "1:wrong", "getMe", nil); a.ErrorCode != 401 || a.Description != "Unauthorized" {
		t.Fatalf("bad token answered %+v", a)
	}
	s.RateLimit("getMe", 5)
	if a := call(t, ctx, s.URL(), s.Token(), "getMe", nil); a.ErrorCode != 429 || a.Parameters.RetryAfter != 5 {
		t.Fatalf("rate limit answered %+v", a)
	}
	if a := call(t, ctx, s.URL(), s.Token(), "getMe", nil); !a.OK {
		t.Fatalf("second call answered %+v", a)
	}
}

func TestParseHTML(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"<b>x</b> <i>y</i>", "x y", true},
		{`<a href="https://a.b?c=1&amp;d=2">l</a>`, "l", true},
		{`<span class="tg-spoiler">s</span>`, "s", true},
		{`<pre><code class="language-go">x</code></pre>`, "x", true},
		{"&#128512;&#x41;&quot;", "😀A\"", true},
		{"<b>x", "", false},
		{"<b>x</i>", "", false},
		{"<div>x</div>", "", false},
		{"a < b", "", false},
		{"&nbsp;", "", false},
		{"<a>x</a>", "", false},
	}
	for _, tt := range tests {
		got, err := ParseHTML(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseHTML(%q) = %q, %v", tt.in, got, err)
		}
	}
}

func TestControlAPI(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	post := func(path string, body any) *http.Response {
		raw, _ := json.Marshal(body)
		resp, err := http.Post(s.URL()+path, "application/json", bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	resp := post("/_control/message", ControlMessage{ChatID: -100777, ChatTitle: "Owls", From: User{ID: 9, FirstName: "Zed"}, Text: "hi @airi_test_bot"})
	var got struct {
		MessageID int   `json:"message_id"`
		ChatID    int64 `json:"chat_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || got.MessageID != 1 || got.ChatID != -100777 {
		t.Fatalf("message answered %+v %v", got, err)
	}
	a := call(t, ctx, s.URL(), s.Token(), "getUpdates", nil)
	var us []Update
	_ = json.Unmarshal(a.Result, &us)
	if len(us) != 1 || us[0].Message.Chat.Type != Supergroup || us[0].Message.Chat.Title != "Owls" ||
		len(us[0].Message.Entities) != 1 || us[0].Message.Entities[0].Type != "mention" {
		t.Fatalf("updates %+v", us)
	}
	post("/_control/fault", ControlFault{Method: "sendMessage", Fault: Fault{Code: 429, Description: "Too Many Requests", RetryAfter: 1}})
	if a := call(t, ctx, s.URL(), s.Token(), "sendMessage", map[string]any{"chat_id": -100777, "text": "x"}); a.ErrorCode != 429 {
		t.Fatalf("fault not applied: %+v", a)
	}
	done := make(chan []Sent, 1)
	go func() {
		resp, err := http.Get(s.URL() + "/_control/sent?min=1&wait=5s")
		if err != nil {
			done <- nil
			return
		}
		defer resp.Body.Close()
		var sent []Sent
		_ = json.NewDecoder(resp.Body).Decode(&sent)
		done <- sent
	}()
	call(t, ctx, s.URL(), s.Token(), "sendMessage", map[string]any{"chat_id": -100777, "text": "answer"})
	if sent := <-done; len(sent) != 1 || sent[0].Text != "answer" {
		t.Fatalf("sent %+v", sent)
	}
}

// TestWebhook registers a webhook with a secret: updates are posted to it
// with the secret header, refused ones are posted again, getUpdates is
// refused meanwhile, and deleteWebhook brings polling back.
func TestWebhook(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := Start(Options{WebhookRetry: time.Millisecond})
	defer s.Close()

	type got struct {
		secret string
		update Update
	}
	received := make(chan got, 10)
	refuse := 1 // the first post is answered 500
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var u Update
		if err := json.NewDecoder(r.Body).Decode(&u); err != nil {
			t.Errorf("webhook body: %v", err)
		}
		received <- got{r.Header.Get(SecretHeader), u}
		if refuse > 0 {
			refuse--
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
	}))
	defer hook.Close()

	tests := []struct {
		name   string
		params map[string]any
		ok     bool
	}{
		{"not loopback", map[string]any{"url": "https://example.com/hook", "secret_token": "s3cret"}, false},
		{"bad secret", map[string]any{"url": hook.URL, "secret_token": "not allowed!"}, false},
		{"ok", map[string]any{"url": hook.URL, "secret_token": "s3cret_-X"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := call(t, ctx, s.URL(), s.Token(), "setWebhook", tt.params)
			if a.OK != tt.ok {
				t.Errorf("setWebhook ok = %v (%s), want %v", a.OK, a.Description, tt.ok)
			}
		})
	}
	if a := call(t, ctx, s.URL(), s.Token(), "getUpdates", map[string]any{}); a.ErrorCode != http.StatusConflict {
		t.Errorf("getUpdates with a webhook: %+v, want 409", a)
	}
	ann := User{ID: 501, FirstName: "Ann"}
	m := s.Post(Incoming{From: ann, Text: "hi"})
	for i := 0; i < 2; i++ { // refused once, then accepted
		select {
		case g := <-received:
			if g.secret != "s3cret_-X" || g.update.Message == nil || g.update.Message.MessageID != m.MessageID {
				t.Errorf("post %d: secret %q, update %+v", i, g.secret, g.update)
			}
		case <-ctx.Done():
			t.Fatal("the update was not posted twice")
		}
	}
	if err := s.WaitDelivered(ctx); err != nil {
		t.Fatal(err)
	}
	want := []Delivery{{UpdateID: 1, Status: 500}, {UpdateID: 1, Status: 200}}
	if d := s.Deliveries(); fmt.Sprint(d) != fmt.Sprint(want) {
		t.Errorf("deliveries = %v, want %v", d, want)
	}
	var info WebhookInfo
	a := call(t, ctx, s.URL(), s.Token(), "getWebhookInfo", map[string]any{})
	if err := json.Unmarshal(a.Result, &info); err != nil {
		t.Fatal(err)
	}
	if info.URL != hook.URL || info.PendingUpdateCount != 0 || !strings.Contains(info.LastErrorMessage, "500") {
		t.Errorf("getWebhookInfo = %+v", info)
	}

	call(t, ctx, s.URL(), s.Token(), "deleteWebhook", map[string]any{})
	s.Post(Incoming{From: ann, Text: "again"})
	a = call(t, ctx, s.URL(), s.Token(), "getUpdates", map[string]any{"timeout": 0})
	var ups []Update
	if err := json.Unmarshal(a.Result, &ups); err != nil || len(ups) != 1 || ups[0].Message.Text != "again" {
		t.Errorf("getUpdates after deleteWebhook = %s (%v)", a.Result, err)
	}
}

// TestHoldPerformsTheCallAndAnswersNothing: a held call is carried out
// at once and its answer never comes, until the client gives up.
func TestHoldPerformsTheCallAndAnswersNothing(t *testing.T) {
	s := start(t)
	s.Post(Incoming{From: User{ID: 9, FirstName: "Zed"}, Text: "hi"})
	s.Fail("sendMessage", Fault{Hold: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	answered := make(chan error, 1)
	go func() {
		_, err := callErr(ctx, s.URL(), s.Token(), "sendMessage", map[string]any{"chat_id": 9, "text": "held"})
		answered <- err
	}()
	sent, err := s.WaitSent(context.Background(), 1)
	if err != nil || sent[0].Text != "held" {
		t.Fatalf("sent %+v, %v; want the held message", sent, err)
	}
	select {
	case err := <-answered:
		t.Fatalf("a held call was answered once carried out (%v)", err)
	default:
	}
	cancel()
	if err := <-answered; err == nil {
		t.Fatal("a held call was answered after the client gave up")
	}
	if a := call(t, context.Background(), s.URL(), s.Token(), "sendMessage", map[string]any{"chat_id": 9, "text": "next"}); !a.OK {
		t.Errorf("the call after the held one: %+v", a)
	}
}
