package telegramtest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
)

// TestReactionsAsTheBotAPI: setMessageReaction takes one allowed emoji
// on an existing message; message_reaction updates come only when asked
// for in allowed_updates and, in a group, to an administrator; the
// control API drives both.
func TestReactionsAsTheBotAPI(t *testing.T) {
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
	post("/_control/message", ControlMessage{ChatID: -100777, ChatTitle: "Owls", From: User{ID: 9, FirstName: "Zed"}, Text: "hi"})
	react := func(msg int, emoji ...string) apiAnswer {
		list := []ReactionType{}
		for _, e := range emoji {
			list = append(list, ReactionType{Type: "emoji", Emoji: e})
		}
		raw, _ := json.Marshal(list)
		return call(t, ctx, s.URL(), s.Token(), "setMessageReaction", map[string]any{"chat_id": -100777, "message_id": msg, "reaction": string(raw)})
	}
	for _, tt := range []struct {
		name  string
		msg   int
		emoji []string
		desc  string
	}{
		{"not allowed", 1, []string{"🦖"}, "Bad Request: REACTION_INVALID"},
		{"two at once", 1, []string{"👍", "🔥"}, "Bad Request: REACTIONS_TOO_MANY"},
		{"no such message", 9, []string{"👍"}, "Bad Request: message to react not found"},
	} {
		if a := react(tt.msg, tt.emoji...); a.OK || a.Description != tt.desc {
			t.Errorf("%s: %+v, want %q", tt.name, a, tt.desc)
		}
	}
	if a := react(1, "👍"); !a.OK {
		t.Fatalf("setMessageReaction 👍: %+v", a)
	}
	resp, err := http.Get(s.URL() + "/_control/reactions")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var set []SetReaction
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil || len(set) != 1 || set[0].Emoji != "👍" || set[0].MessageID != 1 {
		t.Fatalf("reactions %+v, %v", set, err)
	}

	queued := func(body ControlReaction) bool {
		var out struct {
			Queued bool `json:"queued"`
		}
		if err := json.NewDecoder(post("/_control/react", body).Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out.Queued
	}
	zed := ControlReaction{ChatID: -100777, MessageID: 1, From: User{ID: 9, FirstName: "Zed"}, Emoji: []string{"🔥"}}
	call(t, ctx, s.URL(), s.Token(), "getUpdates", map[string]any{"offset": 2, "allowed_updates": `["message","message_reaction"]`})
	if queued(zed) {
		t.Error("a reaction was sent to a bot that is no administrator of the group")
	}
	post("/_control/admin", map[string]any{"chat_id": -100777, "admin": true})
	if !queued(zed) {
		t.Error("a reaction was not sent to an administrator that asked for them")
	}
	a := call(t, ctx, s.URL(), s.Token(), "getUpdates", map[string]any{"offset": 2})
	var us []Update
	_ = json.Unmarshal(a.Result, &us)
	if len(us) != 1 || us[0].MessageReaction == nil || len(us[0].MessageReaction.NewReaction) != 1 ||
		us[0].MessageReaction.NewReaction[0].Emoji != "🔥" || len(us[0].MessageReaction.OldReaction) != 1 {
		t.Fatalf("updates %+v", us)
	}
	call(t, ctx, s.URL(), s.Token(), "getUpdates", map[string]any{"offset": us[0].UpdateID + 1, "allowed_updates": `["message"]`})
	if queued(zed) {
		t.Error("a reaction was sent although allowed_updates no longer asks for them")
	}
}
