package satoritest

import (
	"encoding/json"
	"net/http"
)

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

// controlChanges mounts the control endpoints of edits and deletions.
func (s *Server) controlChanges(mux *http.ServeMux) {
	mux.HandleFunc("POST /_control/updates", func(w http.ResponseWriter, r *http.Request) {
		var m Message
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil || m.ID == "" || m.ChannelID == "" || m.UserID == "" {
			http.Error(w, "body must be a JSON message with id, channelId and userId", http.StatusBadRequest)
			return
		}
		writeJSON(w, map[string]int64{"sn": s.PushUpdate(m)})
	})
	mux.HandleFunc("POST /_control/deletions", func(w http.ResponseWriter, r *http.Request) {
		var d struct {
			ChannelID string `json:"channelId"`
			GuildID   string `json:"guildId"`
			ID        string `json:"id"`
			Login     int    `json:"login"`
		}
		if err := json.NewDecoder(r.Body).Decode(&d); err != nil || d.ID == "" || d.ChannelID == "" {
			http.Error(w, `body must be {"channelId": ..., "id": ...}`, http.StatusBadRequest)
			return
		}
		writeJSON(w, map[string]int64{"sn": s.PushDelete(d.ChannelID, d.GuildID, d.ID, d.Login)})
	})
}
