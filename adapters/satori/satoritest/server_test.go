package satoritest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"

	"github.com/airi-go/airi/adapters/satori/satoritest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

type frame struct {
	Op   int                        `json:"op"`
	Body map[string]json.RawMessage `json:"body"`
}

func dial(t *testing.T, ctx context.Context, srv *satoritest.Server, identify string) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.Dial(ctx, srv.WSURL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	if err := c.Write(ctx, websocket.MessageText, []byte(identify)); err != nil {
		t.Fatal(err)
	}
	return c
}

func next(t *testing.T, ctx context.Context, c *websocket.Conn) frame {
	t.Helper()
	_, data, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var f frame
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("frame %s: %v", data, err)
	}
	return f
}

// The revisions differ in the field names of events and logins and in the
// IDENTIFY field they resume from.
func TestRevisions(t *testing.T) {
	tests := []struct {
		name     string
		rev      satoritest.Revision
		identify string
		seqField string
		botField string
	}{
		{"current", satoritest.Current, `{"op":3,"body":{"sn":1}}`, "sn", "login"},
		{"legacy", satoritest.Legacy, `{"op":3,"body":{"sequence":1}}`, "id", "self_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			srv := satoritest.NewServer(satoritest.Options{Revision: tt.rev})
			defer srv.Close()
			srv.PushMessage(satoritest.Message{ChannelID: "c", UserID: "u", Content: "one"})
			srv.PushMessage(satoritest.Message{ChannelID: "c", UserID: "u", Content: "two"})
			c := dial(t, ctx, srv, tt.identify)
			if f := next(t, ctx, c); f.Op != satoritest.OpReady || f.Body["logins"] == nil {
				t.Fatalf("first frame %+v, want READY", f)
			}
			f := next(t, ctx, c)
			if f.Op != satoritest.OpEvent || string(f.Body[tt.seqField]) != "2" || f.Body[tt.botField] == nil {
				t.Fatalf("replayed frame %+v, want event 2 with %s and %s", f, tt.seqField, tt.botField)
			}
			if !strings.Contains(string(f.Body["message"]), `"two"`) {
				t.Errorf("replayed %s, want the second message", f.Body["message"])
			}
			if err := c.Write(ctx, websocket.MessageText, []byte(`{"op":1,"body":{}}`)); err != nil {
				t.Fatal(err)
			}
			if f := next(t, ctx, c); f.Op != satoritest.OpPong {
				t.Errorf("answer to PING = %+v", f)
			}
		})
	}
}

func TestControlAPI(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv := satoritest.NewServer(satoritest.Options{Token: "t"})
	defer srv.Close()
	c := dial(t, ctx, srv, `{"op":3,"body":{"token":"t"}}`)
	next(t, ctx, c) // READY

	resp, err := http.Post(srv.URL()+"/_control/messages", "application/json",
		strings.NewReader(`{"channelId":"g","userId":"u","content":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if f := next(t, ctx, c); f.Op != satoritest.OpEvent || !strings.Contains(string(f.Body["message"]), `"hi"`) {
		t.Errorf("injected message arrived as %+v", f)
	}
	for _, ch := range []struct{ path, body, typ string }{
		{"/_control/updates", `{"id":"m9","channelId":"g","userId":"u","content":"hi!"}`, `"message-updated"`},
		{"/_control/deletions", `{"id":"m9","channelId":"g"}`, `"message-deleted"`},
	} {
		resp, err := http.Post(srv.URL()+ch.path, "application/json", strings.NewReader(ch.body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if f := next(t, ctx, c); f.Op != satoritest.OpEvent || string(f.Body["type"]) != ch.typ || !strings.Contains(string(f.Body["message"]), `"m9"`) {
			t.Errorf("%s arrived as %+v", ch.path, f)
		}
	}
	if resp, err := http.Post(srv.URL()+"/_control/deletions", "application/json", strings.NewReader(`{"channelId":"g"}`)); err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a deletion without a message id: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	send := func(headers map[string]string) int {
		req, _ := http.NewRequest(http.MethodPost, srv.APIBaseURL()+"/message.create",
			bytes.NewReader([]byte(`{"channel_id":"g","content":"yo"}`)))
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	good := map[string]string{"Authorization": "Bearer t", "Content-Type": "application/json", "Satori-Platform": "test", "Satori-User-ID": "bot"}
	for name, h := range map[string]map[string]string{
		"no token":       {"Content-Type": "application/json", "Satori-Platform": "test", "Satori-User-ID": "bot"},
		"legacy headers": {"Authorization": "Bearer t", "Content-Type": "application/json", "X-Platform": "test", "X-Self-ID": "bot"},
		"text body":      {"Authorization": "Bearer t", "Content-Type": "text/plain", "Satori-Platform": "test", "Satori-User-ID": "bot"},
	} {
		if code := send(h); code < 400 {
			t.Errorf("%s: status %d, want a refusal", name, code)
		}
	}
	if code := send(good); code != http.StatusOK {
		t.Fatalf("good send: status %d", code)
	}
	resp, err = http.Get(srv.URL() + "/_control/sent")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sent []satoritest.Sent
	if err := json.NewDecoder(resp.Body).Decode(&sent); err != nil {
		t.Fatal(err)
	}
	if len(sent) != 1 || sent[0].Content != "yo" || sent[0].ChannelID != "g" {
		t.Errorf("sent = %+v", sent)
	}
}
