// Package telegramtest is a fake Telegram Bot API server for tests. It
// follows the Bot API's semantics where the adapter depends on them:
// getUpdates with offset confirmation (an update is forgotten once a later
// call passes an offset above its id) and long polling that answers as soon
// as an update is queued; a newer getUpdates ends an older one with 409;
// sendMessage that checks the chat, the reply target, the length and the
// HTML entities, and numbers messages per chat; sendChatAction; 401 for a
// wrong token; setWebhook with a secret_token, deleteWebhook and
// getWebhookInfo, after which every update is posted to the webhook (with
// the X-Telegram-Bot-Api-Secret-Token header) until it answers 2xx, and
// getUpdates is refused with 409; setMessageReaction that takes one emoji
// among those the chat allows (REACTION_INVALID otherwise), getChat with
// available_reactions, and message_reaction updates queued by React only
// when allowed_updates asked for them and, in groups, the bot is an
// administrator; getFile and the file downloads under /file/bot<token>/
// for the media of the messages injected, with Telegram's 20 MB refusal,
// counted per file. Faults (429 with retry_after, refused entities, a
// connection dropped after the message was sent, a call carried out and
// never answered) are injected per method.
// A Room makes one group shared by several servers, one per bot token, as
// bots see each other's messages in a group with bot-to-bot mode on.
//
// Tests inject user messages with Post and read what the bot sent with
// Sent or WaitSent. The same server runs as a standalone process
// (cmd/fakebotapi) driven through a small HTTP control API under
// /_control/.
package telegramtest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// Options configures a Server.
type Options struct {
	// Token is the only accepted token [DefaultToken].
	Token string
	// Bot is the bot's identity [id 7000001, "Airi", @airi_test_bot].
	Bot User
	// ReadAllGroupMessages is getMe's can_read_all_group_messages
	// (privacy mode off).
	ReadAllGroupMessages bool
	// Now is the clock of message dates [time.Now].
	Now func() time.Time
	// WebhookRetry is how long an update the webhook refused waits before
	// it is posted again [100ms].
	WebhookRetry time.Duration
}

// Server is a fake Bot API server. It is an http.Handler; Start serves it
// on a loopback httptest server.
type Server struct {
	opts Options

	mu        sync.Mutex
	changed   chan struct{} // closed and replaced on every change
	updates   []Update      // not yet confirmed, in id order
	nextUpd   int
	confirmed int // the highest offset a getUpdates passed
	pollGen   int
	chats     map[int64]Chat
	lastID    map[int64]int
	messages  map[int64]map[int]*Message
	topics    map[int64]map[int]bool
	rooms     map[int64]*Room // groups shared with other bots (room.go)
	sent      []Sent
	actions   []ChatAction
	faults    map[string][]Fault
	calls     map[string]int

	// Files announced with media (media.go), by file_id and file_path.
	files   map[string]*file
	paths   map[string]*file
	fileSeq int

	// Reactions (reaction.go).
	reactions      []SetReaction
	available      map[int64][]string
	admins         map[int64]bool
	userReactions  map[string][]ReactionType
	allowedUpdates map[string]bool

	hook          webhook
	inflight      map[int]bool      // updates being posted to the webhook
	retryAt       map[int]time.Time // refused updates wait until then
	deliveries    []Delivery
	deliverCancel context.CancelFunc
	deliverWG     sync.WaitGroup

	httpSrv *httptest.Server
}

// NewServer makes a server without listening (see Start).
func NewServer(opts Options) *Server {
	if opts.Token == "" {
		opts.Token = DefaultToken
	}
	if opts.Bot.ID == 0 {
		opts.Bot = User{ID: 7000001, FirstName: "Airi", Username: "airi_test_bot"}
	}
	opts.Bot.IsBot = true
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.WebhookRetry <= 0 {
		opts.WebhookRetry = 100 * time.Millisecond
	}
	return &Server{
		opts:     opts,
		changed:  make(chan struct{}),
		nextUpd:  1,
		chats:    make(map[int64]Chat),
		lastID:   make(map[int64]int),
		messages: make(map[int64]map[int]*Message),
		topics:   make(map[int64]map[int]bool),
		faults:   make(map[string][]Fault),
		calls:    make(map[string]int),
		files:    make(map[string]*file),
		paths:    make(map[string]*file),
		inflight: make(map[int]bool),
		retryAt:  make(map[int]time.Time),
	}
}

// Start serves a new server on 127.0.0.1 until Close.
func Start(opts Options) *Server {
	s := NewServer(opts)
	s.httpSrv = httptest.NewServer(s)
	return s
}

// URL is the base URL to configure as the Bot API server.
func (s *Server) URL() string {
	if s.httpSrv == nil {
		return ""
	}
	return s.httpSrv.URL
}

// Close stops a server made by Start, ending pending long polls, and
// stops posting to a webhook.
func (s *Server) Close() {
	s.stopDelivery()
	if s.httpSrv != nil {
		s.httpSrv.CloseClientConnections()
		s.httpSrv.Close()
	}
}

// Token returns the accepted token.
func (s *Server) Token() string { return s.opts.Token }

// Bot returns the bot's identity.
func (s *Server) Bot() User { return s.opts.Bot }

// notify wakes waiters; callers hold mu.
func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// waitFor blocks until cond (called under mu) holds or ctx ends.
func (s *Server) waitFor(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		if cond() {
			s.mu.Unlock()
			return nil
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Post injects a user message (queued as a "message" update) and returns it.
func (s *Server) Post(in Incoming) Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.postMessage(in, 0)
}

// postMessage queues a user message under id (0: the chat's next); callers hold
// mu.
func (s *Server) postMessage(in Incoming, id int) Message {
	from := in.From
	if in.Chat.ID == 0 {
		in.Chat = PrivateChat(from)
	}
	if in.Chat.Type == "" {
		in.Chat.Type = Private
		if in.Chat.ID < 0 {
			in.Chat.Type = Supergroup
		}
	}
	s.chats[in.Chat.ID] = in.Chat
	m := s.newMessageID(in.Chat, &from, id)
	if in.Thread != 0 {
		if s.topics[in.Chat.ID] == nil {
			s.topics[in.Chat.ID] = make(map[int]bool)
		}
		s.topics[in.Chat.ID][in.Thread] = true
		m.MessageThreadID, m.IsTopicMessage = in.Thread, true
		if root := s.messages[in.Chat.ID][in.Thread]; root != nil && root.ForumTopicCreated != nil && in.ReplyTo == 0 {
			// Telegram sends a topic's messages as replies to the
			// service message that created it.
			cp := *root
			m.ReplyToMessage = &cp
		}
	}
	if in.ForwardedFrom != "" {
		m.ForwardOrigin = map[string]any{"type": "hidden_user", "date": m.Date - 60, "sender_user_name": in.ForwardedFrom}
	}
	if in.Media != "" {
		m.Caption = in.Caption
		m.CaptionEntities = computeEntities(in.Caption)
		s.attach(m, in)
	} else {
		m.Text = in.Text
		m.Entities = in.Entities
		if m.Entities == nil {
			m.Entities = computeEntities(in.Text)
		}
	}
	if in.ReplyTo != 0 {
		if r := s.messages[in.Chat.ID][in.ReplyTo]; r != nil {
			cp := *r
			cp.ReplyToMessage = nil // Telegram does not nest replies further
			m.ReplyToMessage = &cp
		}
	}
	s.queue(Update{Message: m})
	return *m
}

// Edit queues an "edited_message" update for a stored message.
func (s *Server) Edit(chatID int64, messageID int, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.messages[chatID][messageID]
	if m == nil {
		return fmt.Errorf("no message %d in chat %d", messageID, chatID)
	}
	m.Text = text
	m.Entities = computeEntities(text)
	m.EditDate = s.opts.Now().Unix()
	cp := *m
	s.queue(Update{EditedMessage: &cp})
	return nil
}

// newMessage numbers a message in its chat (or its room) and stores it;
// callers hold mu.
func (s *Server) newMessage(chat Chat, from *User) *Message {
	return s.newMessageID(chat, from, 0)
}

// newMessageID stores a message under id, or numbers it when id is 0;
// callers hold mu.
func (s *Server) newMessageID(chat Chat, from *User, id int) *Message {
	if id == 0 {
		id = s.roomID(chat.ID)
	}
	if id == 0 {
		s.lastID[chat.ID]++
		id = s.lastID[chat.ID]
	}
	m := &Message{MessageID: id, From: from, Chat: chat, Date: s.opts.Now().Unix()}
	s.storeMessage(m)
	return m
}

// storeMessage keeps m for replies, edits and reactions; callers hold mu.
func (s *Server) storeMessage(m *Message) {
	if s.messages[m.Chat.ID] == nil {
		s.messages[m.Chat.ID] = make(map[int]*Message)
	}
	s.messages[m.Chat.ID][m.MessageID] = m
}

// PostRaw queues an update made of fields as given (the server adds its
// update_id), however malformed: a message whose text is a number, a kind
// of update no client knows. It returns the update's id.
func (s *Server) PostRaw(fields map[string]any) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue(Update{raw: fields})
	return s.updates[len(s.updates)-1].UpdateID
}

// queue appends an update; callers hold mu.
func (s *Server) queue(u Update) {
	u.UpdateID = s.nextUpd
	s.nextUpd++
	if u.Message != nil {
		cp := *u.Message
		u.Message = &cp
	}
	s.updates = append(s.updates, u)
	s.notify()
}

// Fail injects f into the next calls of method.
func (s *Server) Fail(method string, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Times <= 0 {
		f.Times = 1
	}
	s.faults[method] = append(s.faults[method], f)
}

// RateLimit makes the next call of method answer 429 with retry_after.
func (s *Server) RateLimit(method string, retryAfter int) {
	s.Fail(method, Fault{Code: http.StatusTooManyRequests,
		Description: fmt.Sprintf("Too Many Requests: retry after %d", retryAfter), RetryAfter: retryAfter})
}

// RejectEntities makes the next n sendMessage calls with a parse_mode fail
// with 400 "can't parse entities", whatever their markup.
func (s *Server) RejectEntities(n int) {
	s.Fail("sendMessage", Fault{Code: http.StatusBadRequest, OnlyParseMode: true, Times: n,
		Description: "Bad Request: can't parse entities: Unsupported start tag \"x\" at byte offset 0"})
}

// Sent returns the messages the bot sent, in order.
func (s *Server) Sent() []Sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sent(nil), s.sent...)
}

// WaitSent waits until the bot sent at least n messages and returns them.
func (s *Server) WaitSent(ctx context.Context, n int) ([]Sent, error) {
	if err := s.waitFor(ctx, func() bool { return len(s.sent) >= n }); err != nil {
		return s.Sent(), fmt.Errorf("wait for %d sent messages: %w", n, err)
	}
	return s.Sent(), nil
}

// ChatActions returns the sendChatAction calls, in order.
func (s *Server) ChatActions() []ChatAction {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ChatAction(nil), s.actions...)
}

// Pending returns the ids of updates not yet confirmed.
func (s *Server) Pending() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]int, 0, len(s.updates))
	for _, u := range s.updates {
		ids = append(ids, u.UpdateID)
	}
	return ids
}

// WaitConfirmed waits until every update up to id is confirmed.
func (s *Server) WaitConfirmed(ctx context.Context, id int) error {
	return s.waitFor(ctx, func() bool { return s.confirmed > id })
}

// WaitCalls waits until method was called at least n times.
func (s *Server) WaitCalls(ctx context.Context, method string, n int) error {
	return s.waitFor(ctx, func() bool { return s.calls[method] >= n })
}

// Calls returns how many times method was called.
func (s *Server) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}
