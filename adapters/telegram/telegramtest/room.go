package telegramtest

import (
	"cmp"
	"slices"
	"sync"
)

// Room is one group shared by several fake servers, one per bot, as a
// Telegram group holds several bots with their own tokens: its messages
// are numbered once for all of them, a person's message posted to the
// room reaches every bot, and a message one bot sends there reaches the
// others as a "message" update from that bot, as it does when BotFather's
// bot-to-bot setting is on for the bots in the group.
type Room struct {
	chat    Chat
	members []*Server

	mu     sync.Mutex // a leaf: taken under a member's mu, never around one
	lastID int
}

// NewRoom makes chat a room of the members. A member is in at most one
// room per chat; the chat is a supergroup unless chat.Type says else.
func NewRoom(chat Chat, members ...*Server) *Room {
	if chat.Type == "" {
		chat.Type = Supergroup
	}
	r := &Room{chat: chat, members: members}
	for _, s := range members {
		s.mu.Lock()
		if s.rooms == nil {
			s.rooms = make(map[int64]*Room)
		}
		s.rooms[chat.ID] = r
		s.chats[chat.ID] = chat
		s.mu.Unlock()
	}
	return r
}

// nextID numbers the room's next message.
func (r *Room) nextID() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastID++
	return r.lastID
}

// Post injects a person's message into the room: every member gets it
// under one message id, which it returns.
func (r *Room) Post(in Incoming) int {
	in.Chat = r.chat
	id := r.nextID()
	for _, s := range r.members {
		s.mu.Lock()
		s.postMessage(in, id)
		s.mu.Unlock()
	}
	return id
}

// Sent returns what every member sent in the room, by message id.
func (r *Room) Sent() []Sent {
	var out []Sent
	for _, s := range r.members {
		for _, m := range s.Sent() {
			if m.ChatID == r.chat.ID {
				out = append(out, m)
			}
		}
	}
	slices.SortFunc(out, func(a, b Sent) int { return cmp.Compare(a.MessageID, b.MessageID) })
	return out
}

// relay hands a message from's bot sent in the room to every other
// member as an update; callers hold no member's mu.
func (r *Room) relay(from *Server, m Message) {
	for _, s := range r.members {
		if s == from {
			continue
		}
		s.mu.Lock()
		cp := m
		if cp.Entities == nil {
			cp.Entities = computeEntities(cp.Text)
		}
		s.storeMessage(&cp)
		s.queue(Update{Message: &cp})
		s.mu.Unlock()
	}
}

// roomID is the id of the next message in chat when chat is a room, or
// 0; callers hold mu.
func (s *Server) roomID(chatID int64) int {
	if r := s.rooms[chatID]; r != nil {
		return r.nextID()
	}
	return 0
}
