package telegramtest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
)

// TestTopics creates and renames a forum topic through the control API:
// the service messages come as Telegram sends them, and a message posted
// in the topic replies to the topic's creation.
func TestTopics(t *testing.T) {
	s := start(t)
	post := func(body ControlTopic) (int, int) {
		raw, _ := json.Marshal(body)
		resp, err := http.Post(s.URL()+"/_control/topic", "application/json", bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var got struct {
			Thread int `json:"thread"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&got)
		return resp.StatusCode, got.Thread
	}
	code, thread := post(ControlTopic{ChatID: -100777, ChatTitle: "Owls", Name: "Night"})
	if code != http.StatusOK || thread != 1 {
		t.Fatalf("create: %d thread %d", code, thread)
	}
	if code, _ := post(ControlTopic{ChatID: -100777, Thread: thread, Name: "Late night"}); code != http.StatusOK {
		t.Fatalf("rename: %d", code)
	}
	if code, _ := post(ControlTopic{ChatID: -100777, Thread: 99, Name: "x"}); code != http.StatusNotFound {
		t.Errorf("rename of a missing topic: %d", code)
	}
	if code, _ := post(ControlTopic{ChatID: 5, Name: "x"}); code != http.StatusBadRequest {
		t.Errorf("a topic in a private chat: %d", code)
	}
	chat := Chat{ID: -100777, Type: Supergroup, Title: "Owls", IsForum: true}
	s.Post(Incoming{Chat: chat, From: User{ID: 9, FirstName: "Zed"}, Text: "hoot", Thread: thread})

	a := call(t, context.Background(), s.URL(), s.Token(), "getUpdates", nil)
	var us []Update
	if err := json.Unmarshal(a.Result, &us); err != nil || len(us) != 3 {
		t.Fatalf("updates %s, %v", a.Result, err)
	}
	created, renamed, msg := us[0].Message, us[1].Message, us[2].Message
	if created.ForumTopicCreated["name"] != "Night" || created.MessageThreadID != created.MessageID || !created.IsTopicMessage || !created.Chat.IsForum {
		t.Errorf("creation %+v", created)
	}
	if renamed.ForumTopicEdited["name"] != "Late night" || renamed.MessageThreadID != thread {
		t.Errorf("rename %+v", renamed)
	}
	if msg.MessageThreadID != thread || msg.ReplyToMessage == nil || msg.ReplyToMessage.MessageID != thread {
		t.Errorf("topic message %+v, want a reply to the topic's creation", msg)
	}
}
