// Package telegramtest is a fake Telegram Bot API server for tests. It
// follows the Bot API's semantics where the adapter depends on them:
// getUpdates with offset confirmation (an update is forgotten once a later
// call passes an offset above its id) and long polling that answers as soon
// as an update is queued; a newer getUpdates ends an older one with 409;
// sendMessage that checks the chat, the reply target, the length and the
// HTML entities, and numbers messages per chat; sendChatAction; 401 for a
// wrong token. Faults (429 with retry_after, refused entities, a
// connection dropped after the message was sent) are injected per method.
//
// Tests inject user messages with Post and read what the bot sent with
// Sent or WaitSent. The same server runs as a standalone process
// (cmd/fakebotapi) driven through a small HTTP control API under
// /_control/.
package telegramtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
)

// DefaultToken is a well-formed bot token the fake accepts by default.
const DefaultToken = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0"

// User is a Telegram user (or the bot).
type User struct {
	ID        int64  `json:"id"`
	IsBot     bool   `json:"is_bot"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name,omitempty"`
	Username  string `json:"username,omitempty"`
}

// Chat types.
const (
	Private    = "private"
	Group      = "group"
	Supergroup = "supergroup"
)

// Chat is a Telegram chat.
type Chat struct {
	ID        int64  `json:"id"`
	Type      string `json:"type"`
	Title     string `json:"title,omitempty"`
	Username  string `json:"username,omitempty"`
	FirstName string `json:"first_name,omitempty"`
	LastName  string `json:"last_name,omitempty"`
	// IsForum marks a supergroup with topics.
	IsForum bool `json:"is_forum,omitempty"`
}

// PrivateChat is the private chat of the bot with u.
func PrivateChat(u User) Chat {
	return Chat{ID: u.ID, Type: Private, FirstName: u.FirstName, LastName: u.LastName, Username: u.Username}
}

// Entity is a message entity; offsets and lengths count UTF-16 units.
type Entity struct {
	Type   string `json:"type"`
	Offset int    `json:"offset"`
	Length int    `json:"length"`
	User   *User  `json:"user,omitempty"`
}

// Message is a Telegram message as the Bot API returns it.
type Message struct {
	MessageID       int      `json:"message_id"`
	MessageThreadID int      `json:"message_thread_id,omitempty"`
	IsTopicMessage  bool     `json:"is_topic_message,omitempty"`
	From            *User    `json:"from,omitempty"`
	Chat            Chat     `json:"chat"`
	Date            int64    `json:"date"`
	EditDate        int64    `json:"edit_date,omitempty"`
	ForwardOrigin   any      `json:"forward_origin,omitempty"`
	ReplyToMessage  *Message `json:"reply_to_message,omitempty"`
	Text            string   `json:"text,omitempty"`
	Entities        []Entity `json:"entities,omitempty"`
	Caption         string   `json:"caption,omitempty"`
	CaptionEntities []Entity `json:"caption_entities,omitempty"`
	Photo           any      `json:"photo,omitempty"`
	Sticker         any      `json:"sticker,omitempty"`
	Voice           any      `json:"voice,omitempty"`
	Document        any      `json:"document,omitempty"`
	Video           any      `json:"video,omitempty"`
	Audio           any      `json:"audio,omitempty"`
}

// Update is one entry of getUpdates.
type Update struct {
	UpdateID      int      `json:"update_id"`
	Message       *Message `json:"message,omitempty"`
	EditedMessage *Message `json:"edited_message,omitempty"`
}

// Incoming describes a user message to inject.
type Incoming struct {
	Chat Chat
	From User
	// Text is the message text; @mentions and /commands in it get entities
	// the way Telegram computes them.
	Text string
	// Caption goes with Media instead of Text.
	Caption string
	// ReplyTo is the id of a message of the same chat this one answers.
	ReplyTo int
	// Media is "photo", "sticker" (Emoji), "voice", "document" (FileName),
	// "video" or "audio" (FileName), or empty.
	Media    string
	Emoji    string
	FileName string
	// Entities replaces the computed entities of Text when set.
	Entities []Entity
	// Thread is the forum topic the message is written in (the chat must
	// be a forum; the topic is created on first use).
	Thread int
	// ForwardedFrom, when set, makes the message a forward of a post by a
	// user of that name (who hides their account).
	ForwardedFrom string
}

// Sent is a message the bot sent.
type Sent struct {
	ChatID    int64  `json:"chat_id"`
	MessageID int    `json:"message_id"`
	Text      string `json:"text"`     // visible text, after entity parsing
	Raw       string `json:"raw_text"` // text as the bot sent it
	ParseMode string `json:"parse_mode,omitempty"`
	ReplyTo   int    `json:"reply_to,omitempty"`
	Thread    int    `json:"thread,omitempty"` // forum topic
}

// ChatAction is a sendChatAction call.
type ChatAction struct {
	ChatID int64  `json:"chat_id"`
	Action string `json:"action"`
}

// Fault is an error injected into the next calls of one method.
type Fault struct {
	// Code and Description form the Bot API error (e.g. 429 "Too Many
	// Requests: retry after 3").
	Code        int    `json:"code,omitempty"`
	Description string `json:"description,omitempty"`
	// RetryAfter fills parameters.retry_after.
	RetryAfter int `json:"retry_after,omitempty"`
	// Drop performs the call, then closes the connection without an
	// answer: the client cannot tell whether it worked.
	Drop bool `json:"drop,omitempty"`
	// OnlyParseMode applies the fault only to sendMessage calls that carry
	// a parse_mode (a plain-text retry then passes).
	OnlyParseMode bool `json:"only_parse_mode,omitempty"`
	// Times is how many calls it applies to [1].
	Times int `json:"times,omitempty"`
}

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
	sent      []Sent
	actions   []ChatAction
	faults    map[string][]Fault
	calls     map[string]int

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

// Close stops a server made by Start, ending pending long polls.
func (s *Server) Close() {
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
	m := s.newMessage(in.Chat, &from)
	if in.Thread != 0 {
		if s.topics[in.Chat.ID] == nil {
			s.topics[in.Chat.ID] = make(map[int]bool)
		}
		s.topics[in.Chat.ID][in.Thread] = true
		m.MessageThreadID, m.IsTopicMessage = in.Thread, true
	}
	if in.ForwardedFrom != "" {
		m.ForwardOrigin = map[string]any{"type": "hidden_user", "date": m.Date - 60, "sender_user_name": in.ForwardedFrom}
	}
	if in.Media != "" {
		m.Caption = in.Caption
		m.CaptionEntities = computeEntities(in.Caption)
		switch in.Media {
		case "photo":
			m.Photo = []map[string]any{{"file_id": "p1", "file_unique_id": "p1", "width": 90, "height": 90}}
		case "sticker":
			m.Sticker = map[string]any{"file_id": "s1", "file_unique_id": "s1", "type": "regular", "width": 512, "height": 512, "emoji": in.Emoji}
		case "voice":
			m.Voice = map[string]any{"file_id": "v1", "file_unique_id": "v1", "duration": 3}
		case "document":
			m.Document = map[string]any{"file_id": "d1", "file_unique_id": "d1", "file_name": in.FileName}
		case "video":
			m.Video = map[string]any{"file_id": "w1", "file_unique_id": "w1", "width": 640, "height": 480, "duration": 5}
		case "audio":
			m.Audio = map[string]any{"file_id": "a1", "file_unique_id": "a1", "duration": 60, "file_name": in.FileName}
		}
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

// newMessage numbers a message in its chat and stores it; callers hold mu.
func (s *Server) newMessage(chat Chat, from *User) *Message {
	s.lastID[chat.ID]++
	m := &Message{MessageID: s.lastID[chat.ID], From: from, Chat: chat, Date: s.opts.Now().Unix()}
	if s.messages[chat.ID] == nil {
		s.messages[chat.ID] = make(map[int]*Message)
	}
	s.messages[chat.ID][m.MessageID] = m
	return m
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

// ServeHTTP answers Bot API calls (/bot<token>/<method>) and the control
// API (/_control/...).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/_control/") {
		s.serveControl(w, r)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot")
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found", 0)
		return
	}
	token, method, ok := strings.Cut(rest, "/")
	if !ok || method == "" {
		writeError(w, http.StatusNotFound, "Not Found", 0)
		return
	}
	if token != s.opts.Token {
		writeError(w, http.StatusUnauthorized, "Unauthorized", 0)
		return
	}
	p, err := readParams(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, "Bad Request: "+err.Error(), 0)
		return
	}
	s.mu.Lock()
	s.calls[method]++
	s.notify()
	fault, faulted := s.takeFault(method, p)
	gen := 0
	if method == "getUpdates" && !faulted {
		// A newer poll supersedes older ones from the moment it is counted.
		s.pollGen++
		gen = s.pollGen
	}
	s.mu.Unlock()
	if faulted && !fault.Drop {
		writeError(w, fault.Code, fault.Description, fault.RetryAfter)
		return
	}
	var status int
	var result any
	var desc string
	switch method {
	case "getMe":
		status, result = http.StatusOK, s.getMe()
	case "getUpdates":
		status, result, desc = s.getUpdates(r.Context(), p, gen)
	case "sendMessage":
		status, result, desc = s.sendMessage(p)
	case "sendChatAction":
		status, result, desc = s.sendChatAction(p)
	case "deleteWebhook", "close", "logOut":
		status, result = http.StatusOK, true
	default:
		status, desc = http.StatusNotFound, "Not Found: method not found"
	}
	if status == 0 {
		return // the client went away
	}
	if faulted && fault.Drop {
		hangUp(w)
		return
	}
	if status != http.StatusOK {
		writeError(w, status, desc, 0)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": result})
}

// takeFault pops the fault for method, if any; callers hold mu.
func (s *Server) takeFault(method string, p params) (Fault, bool) {
	fs := s.faults[method]
	for i, f := range fs {
		if f.OnlyParseMode && p.str("parse_mode") == "" {
			continue
		}
		f.Times--
		if f.Times <= 0 {
			s.faults[method] = append(fs[:i:i], fs[i+1:]...)
		} else {
			fs[i] = f
		}
		return f, true
	}
	return Fault{}, false
}

func (s *Server) getMe() map[string]any {
	b := s.opts.Bot
	return map[string]any{
		"id": b.ID, "is_bot": true, "first_name": b.FirstName, "last_name": b.LastName, "username": b.Username,
		"can_join_groups": true, "can_read_all_group_messages": s.opts.ReadAllGroupMessages,
		"supports_inline_queries": false,
	}
}

// getUpdates confirms updates below offset, then answers with the pending
// ones at once, or waits up to timeout seconds for one to be queued.
func (s *Server) getUpdates(ctx context.Context, p params, gen int) (int, any, string) {
	offset := int(p.int("offset"))
	limit := int(p.int("limit"))
	if limit <= 0 || limit > 100 {
		limit = 100
	}
	timeout := time.Duration(p.int("timeout")) * time.Second
	s.mu.Lock()
	switch {
	case offset > 0:
		if offset > s.confirmed {
			s.confirmed = offset
		}
		i := 0
		for i < len(s.updates) && s.updates[i].UpdateID < offset {
			i++
		}
		s.updates = s.updates[i:]
	case offset < 0:
		if n := -offset; n < len(s.updates) {
			s.updates = s.updates[len(s.updates)-n:]
		}
	}
	s.notify()
	s.mu.Unlock()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		s.mu.Lock()
		if s.pollGen != gen {
			s.mu.Unlock()
			return http.StatusConflict, nil, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"
		}
		if len(s.updates) > 0 || timeout <= 0 {
			n := min(limit, len(s.updates))
			out := append([]Update{}, s.updates[:n]...)
			s.mu.Unlock()
			return http.StatusOK, out, ""
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-timer.C:
			timeout = 0
		case <-ctx.Done():
			return 0, nil, ""
		}
	}
}

// sendMessage checks and records a message from the bot.
func (s *Server) sendMessage(p params) (int, any, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	chat, ok := s.chat(p.str("chat_id"))
	if !ok {
		return http.StatusBadRequest, nil, "Bad Request: chat not found"
	}
	raw := p.str("text")
	visible := raw
	mode := p.str("parse_mode")
	if strings.EqualFold(mode, "HTML") {
		v, err := ParseHTML(raw)
		if err != nil {
			return http.StatusBadRequest, nil, "Bad Request: can't parse entities: " + err.Error()
		}
		visible = v
	}
	if strings.TrimSpace(visible) == "" {
		return http.StatusBadRequest, nil, "Bad Request: message text is empty"
	}
	if len(utf16.Encode([]rune(visible))) > 4096 {
		return http.StatusBadRequest, nil, "Bad Request: message is too long"
	}
	replyTo := int(p.int("reply_to_message_id"))
	allowMissing := p.str("allow_sending_without_reply") == "true"
	if rp := p.str("reply_parameters"); rp != "" {
		var v struct {
			MessageID int  `json:"message_id"`
			Allow     bool `json:"allow_sending_without_reply"`
		}
		if err := json.Unmarshal([]byte(rp), &v); err != nil {
			return http.StatusBadRequest, nil, "Bad Request: can't parse reply parameters JSON object"
		}
		replyTo, allowMissing = v.MessageID, v.Allow
	}
	var replied *Message
	if replyTo != 0 {
		replied = s.messages[chat.ID][replyTo]
		if replied == nil && !allowMissing {
			return http.StatusBadRequest, nil, "Bad Request: message to be replied not found"
		}
	}
	thread := int(p.int("message_thread_id"))
	if thread != 0 && !s.topics[chat.ID][thread] {
		return http.StatusBadRequest, nil, "Bad Request: message thread not found"
	}
	bot := s.opts.Bot
	m := s.newMessage(chat, &bot)
	m.Text = visible
	if replied != nil {
		cp := *replied
		cp.ReplyToMessage = nil
		m.ReplyToMessage = &cp
		if replied.IsTopicMessage {
			// A reply goes to the topic of the message it answers.
			thread = replied.MessageThreadID
		}
	} else {
		replyTo = 0
	}
	if thread != 0 {
		m.MessageThreadID, m.IsTopicMessage = thread, true
	}
	s.sent = append(s.sent, Sent{ChatID: chat.ID, MessageID: m.MessageID, Text: visible, Raw: raw, ParseMode: mode, ReplyTo: replyTo, Thread: thread})
	s.notify()
	return http.StatusOK, m, ""
}

func (s *Server) sendChatAction(p params) (int, any, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	chat, ok := s.chat(p.str("chat_id"))
	if !ok {
		return http.StatusBadRequest, nil, "Bad Request: chat not found"
	}
	action := p.str("action")
	if action == "" {
		return http.StatusBadRequest, nil, "Bad Request: action is empty"
	}
	s.actions = append(s.actions, ChatAction{ChatID: chat.ID, Action: action})
	s.notify()
	return http.StatusOK, true, ""
}

// chat finds a known chat by id or @username; callers hold mu.
func (s *Server) chat(id string) (Chat, bool) {
	if strings.HasPrefix(id, "@") {
		for _, c := range s.chats {
			if strings.EqualFold("@"+c.Username, id) && c.Type != Private {
				return c, true
			}
		}
		return Chat{}, false
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return Chat{}, false
	}
	c, ok := s.chats[n]
	return c, ok
}

// computeEntities marks @mentions and /commands in text like Telegram.
func computeEntities(text string) []Entity {
	var out []Entity
	units := utf16.Encode([]rune(text))
	isWord := func(u uint16) bool {
		return u == '_' || (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z')
	}
	for i := 0; i < len(units); i++ {
		c := units[i]
		if (c != '@' && c != '/') || (i > 0 && (isWord(units[i-1]) || units[i-1] == '/' || units[i-1] == '@')) {
			continue
		}
		j := i + 1
		for j < len(units) && (isWord(units[j]) || (c == '/' && units[j] == '@')) {
			j++
		}
		if j-i < 2 || (c == '@' && j-i < 4) {
			continue
		}
		typ := "mention"
		if c == '/' {
			typ = "bot_command"
		}
		out = append(out, Entity{Type: typ, Offset: i, Length: j - i})
		i = j - 1
	}
	return out
}

// params are a call's parameters, from the query, a form or a JSON body;
// JSON strings are unquoted, other JSON values kept as text.
type params map[string]string

func readParams(r *http.Request) (params, error) {
	p := params{}
	for k, v := range r.URL.Query() {
		p[k] = v[0]
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		body, err := io.ReadAll(io.LimitReader(r.Body, 10<<20))
		if err != nil {
			return nil, err
		}
		if len(strings.TrimSpace(string(body))) == 0 {
			return p, nil
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, fmt.Errorf("can't parse JSON object")
		}
		for k, v := range m {
			var s string
			if json.Unmarshal(v, &s) == nil {
				p[k] = s
			} else {
				p[k] = string(v)
			}
		}
	case "application/x-www-form-urlencoded", "multipart/form-data":
		if err := r.ParseMultipartForm(10 << 20); err != nil && err != http.ErrNotMultipart {
			return nil, err
		}
		for k, v := range r.PostForm {
			p[k] = v[0]
		}
	}
	return p, nil
}

func (p params) str(k string) string { return p[k] }

func (p params) int(k string) int64 {
	n, _ := strconv.ParseInt(p[k], 10, 64)
	return n
}

func writeError(w http.ResponseWriter, code int, desc string, retryAfter int) {
	body := map[string]any{"ok": false, "error_code": code, "description": desc}
	if retryAfter > 0 {
		body["parameters"] = map[string]any{"retry_after": retryAfter}
	}
	writeJSON(w, code, body)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// hangUp closes the connection without an answer.
func hangUp(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}
