package telegramtest

import "fmt"

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
