package satoritest

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"time"
)

// Reacted is a reaction the bot created through reaction.create.
type Reacted struct {
	ChannelID string `json:"channelId"`
	MessageID string `json:"messageId"`
	Emoji     string `json:"emoji"`
	Platform  string `json:"platform"`
	UserID    string `json:"userId"`
}

// Reaction describes a reaction-added or reaction-removed event to push.
type Reaction struct {
	ChannelID string `json:"channelId"`
	GuildID   string `json:"guildId,omitempty"`
	MessageID string `json:"messageId"`
	UserID    string `json:"userId"`
	UserName  string `json:"userName,omitempty"`
	UserIsBot bool   `json:"userIsBot,omitempty"`
	Emoji     string `json:"emoji"`
	// Removed pushes reaction-removed instead of reaction-added.
	Removed bool      `json:"removed,omitempty"`
	Time    time.Time `json:"time,omitempty"`
	// Login is the index of the receiving login.
	Login int `json:"login,omitempty"`
}

// Reactions returns the reactions created through the API, in order.
func (s *Server) Reactions() []Reacted {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Reacted(nil), s.reacted...)
}

// PushReaction sends a reaction-added (or reaction-removed) event, with
// the message, channel, guild and user resources like the servers in use,
// and the emoji as an emoji resource; it returns its sequence number.
func (s *Server) PushReaction(r Reaction) int64 {
	if r.Time.IsZero() {
		r.Time = time.Now()
	}
	typ := "reaction-added"
	if r.Removed {
		typ = "reaction-removed"
	}
	user := map[string]any{"id": r.UserID}
	if r.UserName != "" {
		user["name"] = r.UserName
	}
	if r.UserIsBot {
		user["is_bot"] = true
	}
	channelType := 0
	if r.GuildID == "" {
		channelType = 1
	}
	res := map[string]any{
		"channel": map[string]any{"id": r.ChannelID, "type": channelType},
		"user":    user,
		"message": map[string]any{"id": r.MessageID},
		"emoji":   map[string]any{"id": r.Emoji, "name": r.Emoji},
	}
	if r.GuildID != "" {
		res["guild"] = map[string]any{"id": r.GuildID}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pushLocked(typ, r.Login, res)
}

// serveReaction answers reaction.create: the login is named by its
// headers, and channel_id, message_id and emoji are required.
func (s *Server) serveReaction(w http.ResponseWriter, r *http.Request) {
	platform, userID := r.Header.Get("Satori-Platform"), r.Header.Get("Satori-User-ID")
	if s.opts.Revision != Current {
		platform, userID = r.Header.Get("X-Platform"), r.Header.Get("X-Self-ID")
	}
	if s.opts.Token != "" && r.Header.Get("Authorization") != "Bearer "+s.opts.Token {
		http.Error(w, "invalid token", http.StatusForbidden)
		return
	}
	found := false
	for _, l := range s.opts.Logins {
		found = found || (l.Platform == platform && l.UserID == userID)
	}
	if !found {
		http.Error(w, "login not found", http.StatusForbidden)
		return
	}
	var req struct {
		ChannelID string `json:"channel_id"`
		MessageID string `json:"message_id"`
		Emoji     string `json:"emoji"`
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/json" {
		data, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		_ = json.Unmarshal(data, &req)
	}
	if req.ChannelID == "" || req.MessageID == "" || req.Emoji == "" {
		http.Error(w, "channel_id, message_id and emoji are required", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.reacted = append(s.reacted, Reacted{ChannelID: req.ChannelID, MessageID: req.MessageID, Emoji: req.Emoji, Platform: platform, UserID: userID})
	s.notifyLocked()
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte("{}"))
}

// reactionControl mounts the reaction calls of the control API:
//
//	POST /_control/reactions      body: Reaction (JSON) → {"sn": n}
//	GET  /_control/reacted        → [Reacted]
func (s *Server) reactionControl(mux *http.ServeMux) {
	mux.HandleFunc("POST /_control/reactions", func(w http.ResponseWriter, r *http.Request) {
		var re Reaction
		if err := json.NewDecoder(r.Body).Decode(&re); err != nil {
			http.Error(w, "body must be a JSON reaction: "+err.Error(), http.StatusBadRequest)
			return
		}
		if re.ChannelID == "" || re.MessageID == "" || re.UserID == "" || re.Emoji == "" {
			http.Error(w, "channelId, messageId, userId and emoji are required", http.StatusBadRequest)
			return
		}
		writeJSON(w, map[string]int64{"sn": s.PushReaction(re)})
	})
	mux.HandleFunc("GET /_control/reacted", func(w http.ResponseWriter, r *http.Request) {
		out := s.Reactions()
		if out == nil {
			out = []Reacted{}
		}
		writeJSON(w, out)
	})
}
