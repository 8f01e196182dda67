package telegramtest

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
)

// TestRoomSharesAGroupBetweenBots: a person's message reaches both bots
// under one id; what one bot sends reaches the other as a message from a
// bot, with its mention as an entity, numbered after it; a reply to the
// other bot's message is accepted; a bot never gets its own message.
func TestRoomSharesAGroupBetweenBots(t *testing.T) {
	ctx := context.Background()
	a := Start(Options{Token: "111:aaa", Bot: User{ID: 111, FirstName: "Ada", Username: "ada_bot"}})
	b := Start(Options{Token: "222:bbb", Bot: User{ID: 222, FirstName: "Bea", Username: "bea_bot"}})
	t.Cleanup(func() {
		a.Close()
		b.Close()
		http.DefaultClient.CloseIdleConnections()
	})
	room := NewRoom(Chat{ID: -100500, Title: "Lab"}, a, b)
	ann := User{ID: 9, FirstName: "Ann"}
	if id := room.Post(Incoming{From: ann, Text: "@ada_bot @bea_bot hello"}); id != 1 {
		t.Fatalf("first message id %d, want 1", id)
	}
	updates := func(s *Server) []Update {
		t.Helper()
		ans := call(t, ctx, s.URL(), s.Token(), "getUpdates", map[string]any{"timeout": 0})
		var us []Update
		if err := json.Unmarshal(ans.Result, &us); err != nil {
			t.Fatal(err)
		}
		return us
	}
	for _, s := range []*Server{a, b} {
		us := updates(s)
		if len(us) != 1 || us[0].Message.MessageID != 1 || us[0].Message.From.ID != ann.ID {
			t.Fatalf("%s got %+v, want Ann's message 1", s.Bot().Username, us)
		}
	}
	send := call(t, ctx, a.URL(), a.Token(), "sendMessage", map[string]any{"chat_id": -100500, "text": "@bea_bot your turn", "reply_to_message_id": 1})
	if !send.OK {
		t.Fatalf("ada's send: %+v", send)
	}
	us := updates(b)
	if len(us) != 2 {
		t.Fatalf("bea got %d updates, want Ann's and Ada's", len(us))
	}
	m := us[1].Message
	if m.MessageID != 2 || m.From == nil || !m.From.IsBot || m.From.Username != "ada_bot" || m.Text != "@bea_bot your turn" {
		t.Fatalf("bea got %+v, want message 2 from ada_bot", m)
	}
	if len(m.Entities) != 1 || m.Entities[0].Type != "mention" {
		t.Errorf("entities %+v, want the mention", m.Entities)
	}
	if m.ReplyToMessage == nil || m.ReplyToMessage.MessageID != 1 {
		t.Errorf("reply %+v, want to message 1", m.ReplyToMessage)
	}
	reply := call(t, ctx, b.URL(), b.Token(), "sendMessage", map[string]any{"chat_id": -100500, "text": "@ada_bot no, yours", "reply_to_message_id": 2})
	if !reply.OK {
		t.Fatalf("bea's reply to ada's message: %+v", reply)
	}
	if got := len(updates(b)); got != 2 {
		t.Errorf("bea got %d updates after her own send, want still 2", got)
	}
	if us := updates(a); len(us) != 2 || us[1].Message.MessageID != 3 || us[1].Message.From.ID != 222 {
		t.Errorf("ada got %+v, want bea's message 3", us)
	}
	if sent := room.Sent(); len(sent) != 2 || sent[0].MessageID != 2 || sent[1].MessageID != 3 {
		t.Errorf("room sent %+v, want messages 2 and 3", sent)
	}
}
