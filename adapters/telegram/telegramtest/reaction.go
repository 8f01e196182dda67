package telegramtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// DefaultReactions are the emoji Telegram lets a bot put on a message in a
// chat whose administrators did not narrow them down.
var DefaultReactions = []string{
	"❤", "👍", "👎", "🔥", "🥰", "👏", "😁", "🤔", "🤯", "😱", "🤬", "😢", "🎉", "🤩", "🤮", "💩", "🙏", "👌", "🕊",
	"🤡", "🥱", "🥴", "😍", "🐳", "❤‍🔥", "🌚", "🌭", "💯", "🤣", "⚡", "🍌", "🏆", "💔", "🤨", "😐", "🍓", "🍾", "💋",
	"🖕", "😈", "😴", "😭", "🤓", "👻", "👨‍💻", "👀", "🎃", "🙈", "😇", "😨", "🤝", "✍", "🤗", "🫡", "🎅", "🎄", "☃",
	"💅", "🤪", "🗿", "🆒", "💘", "🙉", "🦄", "😘", "💊", "🙊", "😎", "👾", "🤷‍♂", "🤷", "🤷‍♀", "😡",
}

// ReactionType is one entry of a reaction list: an emoji.
type ReactionType struct {
	Type  string `json:"type"`
	Emoji string `json:"emoji,omitempty"`
}

// MessageReaction is a message_reaction update: a user changed their
// reactions on a message.
type MessageReaction struct {
	Chat        Chat           `json:"chat"`
	MessageID   int            `json:"message_id"`
	User        *User          `json:"user,omitempty"`
	Date        int64          `json:"date"`
	OldReaction []ReactionType `json:"old_reaction"`
	NewReaction []ReactionType `json:"new_reaction"`
}

// SetReaction is a setMessageReaction call the server accepted.
type SetReaction struct {
	ChatID    int64 `json:"chat_id"`
	MessageID int   `json:"message_id"`
	// Emoji is the reaction set; empty when the bot took its reaction off.
	Emoji string `json:"emoji"`
}

// Reactions returns the reactions the bot set, in order.
func (s *Server) Reactions() []SetReaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SetReaction(nil), s.reactions...)
}

// SetAvailableReactions narrows the emoji allowed in a chat, as its
// administrators can; nil allows DefaultReactions again.
func (s *Server) SetAvailableReactions(chatID int64, emoji []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.available == nil {
		s.available = make(map[int64][]string)
	}
	s.available[chatID] = emoji
}

// SetAdmin makes the bot an administrator of a group or not: Telegram
// sends a bot message_reaction updates of a group only when it is one.
func (s *Server) SetAdmin(chatID int64, admin bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.admins == nil {
		s.admins = make(map[int64]bool)
	}
	s.admins[chatID] = admin
}

// React makes from put emoji on a message of a chat (no emoji takes their
// reaction off) and queues the message_reaction update, as Telegram does:
// only when the bot asked for message_reaction in allowed_updates and, in
// a group, is an administrator. It reports whether the update was queued.
func (s *Server) React(chatID int64, messageID int, from User, emoji ...string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	chat, ok := s.chats[chatID]
	if !ok {
		return false, fmt.Errorf("no chat %d", chatID)
	}
	if s.messages[chatID][messageID] == nil {
		return false, fmt.Errorf("no message %d in chat %d", messageID, chatID)
	}
	if s.userReactions == nil {
		s.userReactions = make(map[string][]ReactionType)
	}
	key := fmt.Sprintf("%d/%d/%d", chatID, messageID, from.ID)
	old := s.userReactions[key]
	next := make([]ReactionType, 0, len(emoji))
	for _, e := range emoji {
		next = append(next, ReactionType{Type: "emoji", Emoji: e})
	}
	s.userReactions[key] = next
	if !s.allowedUpdates["message_reaction"] || (chat.Type != Private && !s.admins[chatID]) {
		return false, nil
	}
	u := from
	s.queue(Update{MessageReaction: &MessageReaction{Chat: chat, MessageID: messageID, User: &u,
		Date: s.opts.Now().Unix(), OldReaction: nonNil(old), NewReaction: next}})
	return true, nil
}

func nonNil(r []ReactionType) []ReactionType {
	if r == nil {
		return []ReactionType{}
	}
	return r
}

// setAllowedUpdates keeps the update kinds a getUpdates or setWebhook
// asked for; Telegram keeps the last list given, and without one sends
// every kind but chat_member, message_reaction and
// message_reaction_count. Callers hold mu.
func (s *Server) setAllowedUpdates(p params) {
	raw, ok := p["allowed_updates"]
	if !ok {
		return
	}
	var kinds []string
	if err := json.Unmarshal([]byte(raw), &kinds); err != nil {
		return
	}
	s.allowedUpdates = make(map[string]bool, len(kinds))
	for _, k := range kinds {
		s.allowedUpdates[k] = true
	}
}

// setMessageReaction checks and records a reaction of the bot: the chat
// and the message must exist, at most one reaction (a bot is not a
// premium user), and its emoji one the chat allows.
func (s *Server) setMessageReaction(p params) (int, any, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	chat, ok := s.chat(p.str("chat_id"))
	if !ok {
		return http.StatusBadRequest, nil, "Bad Request: chat not found"
	}
	id := int(p.int("message_id"))
	if s.messages[chat.ID][id] == nil {
		return http.StatusBadRequest, nil, "Bad Request: message to react not found"
	}
	var list []ReactionType
	if raw := p.str("reaction"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &list); err != nil {
			return http.StatusBadRequest, nil, "Bad Request: can't parse reaction types JSON object"
		}
	}
	if len(list) > 1 {
		return http.StatusBadRequest, nil, "Bad Request: REACTIONS_TOO_MANY"
	}
	emoji := ""
	if len(list) == 1 {
		if list[0].Type != "emoji" {
			return http.StatusBadRequest, nil, "Bad Request: REACTION_INVALID"
		}
		emoji = list[0].Emoji
		if !slices.Contains(s.availableIn(chat.ID), emoji) {
			return http.StatusBadRequest, nil, "Bad Request: REACTION_INVALID"
		}
	}
	s.reactions = append(s.reactions, SetReaction{ChatID: chat.ID, MessageID: id, Emoji: emoji})
	s.notify()
	return http.StatusOK, true, ""
}

// availableIn returns the emoji allowed in a chat; callers hold mu.
func (s *Server) availableIn(chatID int64) []string {
	if a, ok := s.available[chatID]; ok && a != nil {
		return a
	}
	return DefaultReactions
}

// getChat answers the chat's full information: its kind and title, and
// the reactions allowed in it when its administrators narrowed them down
// (available_reactions is absent when every emoji is allowed).
func (s *Server) getChat(p params) (int, any, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	chat, ok := s.chat(p.str("chat_id"))
	if !ok {
		return http.StatusBadRequest, nil, "Bad Request: chat not found"
	}
	out := map[string]any{"id": chat.ID, "type": chat.Type, "accent_color_id": 0, "max_reaction_count": 11}
	if chat.Title != "" {
		out["title"] = chat.Title
	}
	if chat.Username != "" {
		out["username"] = strings.TrimPrefix(chat.Username, "@")
	}
	if a, ok := s.available[chat.ID]; ok && a != nil {
		list := make([]ReactionType, 0, len(a))
		for _, e := range a {
			list = append(list, ReactionType{Type: "emoji", Emoji: e})
		}
		out["available_reactions"] = list
	}
	return http.StatusOK, out, ""
}

// ControlReaction is the body of POST /_control/react: From sets Emoji
// (none takes their reaction off) on a message.
type ControlReaction struct {
	ChatID    int64    `json:"chat_id"`
	MessageID int      `json:"message_id"`
	From      User     `json:"from"`
	Emoji     []string `json:"emoji"`
}

// serveReactionControl answers the reaction calls of the control API and
// reports whether r was one.
func (s *Server) serveReactionControl(w http.ResponseWriter, r *http.Request) bool {
	switch r.Method + " " + r.URL.Path {
	case "POST /_control/react":
		var in ControlReaction
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, "bad reaction: "+err.Error(), http.StatusBadRequest)
			return true
		}
		if in.From.ID == 0 {
			in.From = User{ID: 1001, FirstName: "Test", LastName: "User", Username: "test_user"}
		}
		queued, err := s.React(in.ChatID, in.MessageID, in.From, in.Emoji...)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return true
		}
		writeJSON(w, http.StatusOK, map[string]any{"queued": queued})
	case "POST /_control/admin":
		var in struct {
			ChatID int64 `json:"chat_id"`
			Admin  bool  `json:"admin"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, "bad admin: "+err.Error(), http.StatusBadRequest)
			return true
		}
		s.SetAdmin(in.ChatID, in.Admin)
		writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	case "GET /_control/reactions":
		out := s.Reactions()
		if out == nil {
			out = []SetReaction{}
		}
		writeJSON(w, http.StatusOK, out)
	default:
		return false
	}
	return true
}
