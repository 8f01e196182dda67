package telegramtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// CreateTopic creates a forum topic in chat as Telegram does: a service
// message with forum_topic_created, whose message id is the new topic's
// message_thread_id, queued as a "message" update. The chat becomes a
// forum. It returns the topic's id.
func (s *Server) CreateTopic(chat Chat, from User, name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	chat.IsForum = true
	if chat.Type == "" {
		chat.Type = Supergroup
	}
	s.chats[chat.ID] = chat
	m := s.newMessage(chat, &from)
	m.MessageThreadID, m.IsTopicMessage = m.MessageID, true
	m.ForumTopicCreated = map[string]any{"name": name, "icon_color": 7322096}
	if s.topics[chat.ID] == nil {
		s.topics[chat.ID] = make(map[int]bool)
	}
	s.topics[chat.ID][m.MessageID] = true
	s.queue(Update{Message: m})
	return m.MessageID
}

// RenameTopic renames a forum topic as Telegram reports it: a service
// message with forum_topic_edited in the topic.
func (s *Server) RenameTopic(chat Chat, from User, thread int, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.topics[chat.ID][thread] {
		return fmt.Errorf("no topic %d in chat %d", thread, chat.ID)
	}
	chat.IsForum = true
	m := s.newMessage(chat, &from)
	m.MessageThreadID, m.IsTopicMessage = thread, true
	m.ForumTopicEdited = map[string]any{"name": name}
	if root := s.messages[chat.ID][thread]; root != nil {
		cp := *root
		m.ReplyToMessage = &cp
	}
	s.queue(Update{Message: m})
	return nil
}

// ControlTopic is the body of POST /_control/topic: a forum topic to
// create in a supergroup, or with Thread set, to rename.
type ControlTopic struct {
	ChatID    int64  `json:"chat_id"`
	ChatTitle string `json:"chat_title,omitempty"`
	From      User   `json:"from"`
	Name      string `json:"name"`
	Thread    int    `json:"thread,omitempty"`
}

func (s *Server) serveTopic(w http.ResponseWriter, r *http.Request) {
	var in ControlTopic
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.ChatID >= 0 || in.Name == "" {
		http.Error(w, `bad topic: want {"chat_id": <negative supergroup id>, "name": ..., "thread": <id to rename>}`, http.StatusBadRequest)
		return
	}
	if in.From.ID == 0 {
		in.From = User{ID: 1001, FirstName: "Test", LastName: "User", Username: "test_user"}
	}
	if in.ChatTitle == "" {
		in.ChatTitle = "Group " + strconv.FormatInt(in.ChatID, 10)
	}
	chat := Chat{ID: in.ChatID, Type: Supergroup, Title: in.ChatTitle, IsForum: true}
	if in.Thread != 0 {
		if err := s.RenameTopic(chat, in.From, in.Thread, in.Name); err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"thread": in.Thread})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"thread": s.CreateTopic(chat, in.From, in.Name)})
}
