package satoritest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/adapters/satori/satoritest"
)

func TestReactionControlAPI(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv := satoritest.NewServer(satoritest.Options{Token: "t"})
	defer srv.Close()
	c := dial(t, ctx, srv, `{"op":3,"body":{"token":"t"}}`)
	next(t, ctx, c) // READY

	resp, err := http.Post(srv.URL()+"/_control/reactions", "application/json",
		strings.NewReader(`{"channelId":"g","guildId":"g","messageId":"s1","userId":"u","emoji":"👍"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	f := next(t, ctx, c)
	var typ string
	_ = json.Unmarshal(f.Body["type"], &typ)
	if f.Op != satoritest.OpEvent || typ != "reaction-added" || !strings.Contains(string(f.Body["emoji"]), "👍") ||
		!strings.Contains(string(f.Body["message"]), `"s1"`) {
		t.Errorf("injected reaction arrived as type %q: %+v", typ, f)
	}

	react := func(body string, headers map[string]string) int {
		req, _ := http.NewRequest(http.MethodPost, srv.APIBaseURL()+"/reaction.create", bytes.NewReader([]byte(body)))
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
	if code := react(`{"channel_id":"g","message_id":"m1"}`, good); code != http.StatusBadRequest {
		t.Errorf("reaction without emoji: status %d, want 400", code)
	}
	if code := react(`{"channel_id":"g","message_id":"m1","emoji":"👍"}`, map[string]string{"Content-Type": "application/json"}); code < 400 {
		t.Errorf("reaction without token or login: status %d, want a refusal", code)
	}
	if code := react(`{"channel_id":"g","message_id":"m1","emoji":"👍"}`, good); code != http.StatusOK {
		t.Fatalf("good reaction: status %d", code)
	}
	resp, err = http.Get(srv.URL() + "/_control/reacted")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got []satoritest.Reacted
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].MessageID != "m1" || got[0].Emoji != "👍" || got[0].UserID != "bot" {
		t.Errorf("reacted = %+v", got)
	}
}
