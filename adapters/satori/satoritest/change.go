package satoritest

// PushUpdate sends a message-updated event: m is the message as it is
// now, with the ID of the message it changes (Koishi's adapters send the
// whole message again, with updated_at). It returns the sequence number.
func (s *Server) PushUpdate(m Message) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pushMessageAs("message-updated", m)
}

// PushDelete sends a message-deleted event for the message id in the
// channel, as the platforms that report deletions do: the channel, the
// guild when there is one, and a message with its id only. It returns
// the sequence number.
func (s *Server) PushDelete(channelID, guildID, messageID string, login int) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := map[string]any{
		"channel": map[string]any{"id": channelID},
		"message": map[string]any{"id": messageID},
	}
	if guildID != "" {
		res["guild"] = map[string]any{"id": guildID}
	}
	return s.pushLocked("message-deleted", login, res)
}
