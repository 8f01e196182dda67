// Package satoritest runs a fake Satori server on httptest for tests: the
// WebSocket event stream (IDENTIFY, READY, EVENT, PING/PONG, resume from
// the sequence number sent in IDENTIFY), the HTTP API recording created
// messages, files served at /files/<name> for the media of messages (with
// the requests counted), both protocol revisions, and fault injection. A control API
// under /_control/ lets other processes drive it (cmd/fakesatori).
package satoritest

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

	"github.com/coder/websocket"
)

// Revision selects the protocol revision the server speaks.
type Revision int

const (
	// Current: events carry sn and login{platform,user}; IDENTIFY resumes
	// from sn; the API reads Satori-Platform/Satori-User-ID.
	Current Revision = iota
	// Legacy: events carry id, platform and self_id; IDENTIFY resumes
	// from sequence; the API reads X-Platform/X-Self-ID.
	Legacy
)

// Opcodes of the event stream.
const (
	OpEvent    = 0
	OpPing     = 1
	OpPong     = 2
	OpIdentify = 3
	OpReady    = 4
	OpMeta     = 5
)

// Login is a bot account the server offers.
type Login struct {
	Platform string `json:"platform"`
	UserID   string `json:"userId"`
	Name     string `json:"name,omitempty"`
}

// Options configure a Server.
type Options struct {
	Revision Revision
	// Token, when set, is required in IDENTIFY and as a Bearer token.
	Token string
	// Logins default to one: platform "test", user "bot", name "Bot".
	Logins []Login
	// Path prefixes the endpoints; "" means "/satori" (Koishi's default),
	// "/" means none.
	Path string
	// Echo makes every created message come back as a message-created
	// event from the bot, as most platforms do.
	Echo bool
	// SingleObject answers message.create with one message object instead
	// of an array.
	SingleObject bool
}

// Message is an incoming message to push as a message-created event.
type Message struct {
	// ID defaults to a generated "m<n>".
	ID          string `json:"id,omitempty"`
	ChannelID   string `json:"channelId"`
	ChannelName string `json:"channelName,omitempty"`
	// ParentID makes the channel a thread of that channel.
	ParentID   string `json:"parentId,omitempty"`
	Direct     bool   `json:"direct,omitempty"`
	GuildID    string `json:"guildId,omitempty"`
	GuildName  string `json:"guildName,omitempty"`
	UserID     string `json:"userId"`
	UserName   string `json:"userName,omitempty"`
	UserNick   string `json:"userNick,omitempty"`
	MemberNick string `json:"memberNick,omitempty"`
	Content    string `json:"content"`
	QuoteID    string `json:"quoteId,omitempty"`
	// QuoteUserID is the author of the quoted message (the bot's login
	// user id for a reply to the bot).
	QuoteUserID string `json:"quoteUserId,omitempty"`
	// UserIsBot marks the sender as a bot (user.is_bot).
	UserIsBot bool      `json:"userIsBot,omitempty"`
	Time      time.Time `json:"time,omitempty"`
	// Login is the index of the receiving login.
	Login int `json:"login,omitempty"`
}

// Sent is a message created through the API.
type Sent struct {
	ID            string `json:"id"`
	ChannelID     string `json:"channelId"`
	Content       string `json:"content"`
	Platform      string `json:"platform"`
	UserID        string `json:"userId"`
	Authorization string `json:"authorization,omitempty"`
	ContentType   string `json:"contentType"`
}

// Identify is one IDENTIFY the server received.
type Identify struct {
	Token string `json:"token"`
	// SN and Sequence are the resume positions as sent (nil if absent).
	SN       *int64 `json:"sn,omitempty"`
	Sequence *int64 `json:"sequence,omitempty"`
}

type conn struct {
	ws         *websocket.Conn
	authorized bool
}

type fault struct {
	status int
	body   string
	hang   bool
}

// Server is a fake Satori server. It is safe for concurrent use.
type Server struct {
	opts Options
	hs   *httptest.Server
	path string
	ctx  context.Context // closed when the server closes
	stop context.CancelFunc

	mu         sync.Mutex
	changed    chan struct{} // closed and replaced on every state change
	seq        int64
	events     []event // every event, for resume
	conns      map[*conn]struct{}
	identifies []Identify
	pings      int
	sent       []Sent
	nextID     int
	noPong     bool
	faults     []fault
	reacted    []Reacted

	// Files served at /files/ (file.go), and the requests per name.
	files        map[string]*fileState
	fileRequests map[string]int
}

type event struct {
	seq  int64
	body map[string]any
}

// NewServer starts a fake server on 127.0.0.1; Close stops it.
func NewServer(opts Options) *Server {
	if len(opts.Logins) == 0 {
		opts.Logins = []Login{{Platform: "test", UserID: "bot", Name: "Bot"}}
	}
	path := opts.Path
	switch path {
	case "":
		path = "/satori"
	case "/":
		path = ""
	}
	path = strings.TrimSuffix(path, "/")
	ctx, stop := context.WithCancel(context.Background())
	s := &Server{
		opts:    opts,
		path:    path,
		ctx:     ctx,
		stop:    stop,
		changed: make(chan struct{}),
		conns:   make(map[*conn]struct{}),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+path+"/v1/events", s.serveEvents)
	mux.HandleFunc("POST "+path+"/v1/message.create", s.serveCreate)
	mux.HandleFunc("POST "+path+"/v1/reaction.create", s.serveReaction)
	mux.HandleFunc("POST "+path+"/v1/{method}", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "method not found", http.StatusNotFound)
	})
	mux.HandleFunc("GET /files/{name}", s.serveFile)
	s.control(mux)
	s.controlFiles(mux)
	s.reactionControl(mux)
	s.hs = httptest.NewServer(mux)
	return s
}

// Close drops every connection and stops the server.
func (s *Server) Close() {
	s.stop()
	s.DropConnections()
	s.hs.Close()
}

// URL is the server root, e.g. http://127.0.0.1:1234.
func (s *Server) URL() string { return s.hs.URL }

// WSURL is the event stream URL to configure as SATORI_WS_URL.
func (s *Server) WSURL() string {
	return "ws" + strings.TrimPrefix(s.hs.URL, "http") + s.path + "/v1/events"
}

// APIBaseURL is the API base to configure as SATORI_API_BASE_URL.
func (s *Server) APIBaseURL() string { return s.hs.URL + s.path + "/v1" }

// Logins returns the logins the server offers.
func (s *Server) Logins() []Login { return append([]Login(nil), s.opts.Logins...) }

// notifyLocked wakes every waiter; s.mu is held.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// WaitFor blocks until cond (called with no lock held) reports true, the
// server changes state to make it so, or ctx ends.
func (s *Server) WaitFor(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("satoritest: wait: %w", ctx.Err())
		case <-ch:
		}
	}
}

// Identifies returns every IDENTIFY received, in order.
func (s *Server) Identifies() []Identify {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Identify(nil), s.identifies...)
}

// Pings returns how many PINGs the server received.
func (s *Server) Pings() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pings
}

// Sent returns the messages created through the API, in order.
func (s *Server) Sent() []Sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sent(nil), s.sent...)
}

// Connections returns how many authorized connections are open.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for c := range s.conns {
		if c.authorized {
			n++
		}
	}
	return n
}

// Seq returns the sequence number of the last event pushed.
func (s *Server) Seq() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	ws.SetReadLimit(1 << 20)
	c := &conn{ws: ws}
	s.mu.Lock()
	s.conns[c] = struct{}{}
	s.notifyLocked()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.notifyLocked()
		s.mu.Unlock()
		ws.CloseNow()
	}()
	ctx := s.ctx
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			return
		}
		var p struct {
			Op   int             `json:"op"`
			Body json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(data, &p); err != nil {
			ws.Close(4000, "invalid message")
			return
		}
		switch p.Op {
		case OpIdentify:
			var id Identify
			_ = json.Unmarshal(p.Body, &id)
			if !s.identify(ctx, c, id) {
				ws.Close(4004, "invalid token")
				return
			}
		case OpPing:
			s.mu.Lock()
			s.pings++
			noPong := s.noPong
			s.notifyLocked()
			s.mu.Unlock()
			if !noPong {
				if err := write(ctx, ws, OpPong, map[string]any{}); err != nil {
					return
				}
			}
		}
	}
}

// identify answers READY and replays the events after the resume position.
// The server lock is held throughout so that no push interleaves.
func (s *Server) identify(ctx context.Context, c *conn, id Identify) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.identifies = append(s.identifies, id)
	s.notifyLocked()
	if s.opts.Token != "" && id.Token != s.opts.Token {
		return false
	}
	if err := write(ctx, c.ws, OpReady, s.readyBody()); err != nil {
		return true
	}
	var from *int64
	if s.opts.Revision == Current {
		from = id.SN
	} else {
		from = id.Sequence
	}
	if from != nil && *from > 0 {
		for _, e := range s.events {
			if e.seq <= *from {
				continue
			}
			if write(ctx, c.ws, OpEvent, e.body) != nil {
				return true
			}
		}
	}
	c.authorized = true
	return true
}

func (s *Server) readyBody() map[string]any {
	var logins []map[string]any
	for i, l := range s.opts.Logins {
		user := map[string]any{"id": l.UserID, "name": l.Name, "is_bot": true}
		if s.opts.Revision == Current {
			logins = append(logins, map[string]any{
				"sn": i + 1, "platform": l.Platform, "user": user, "status": 1,
				"adapter": "fake", "features": []string{"message.create"},
			})
		} else {
			logins = append(logins, map[string]any{
				"platform": l.Platform, "self_id": l.UserID, "user": user, "status": 1,
			})
		}
	}
	body := map[string]any{"logins": logins}
	if s.opts.Revision == Current {
		body["proxy_urls"] = []string{}
	}
	return body
}

func write(ctx context.Context, ws *websocket.Conn, op int, body any) error {
	b, err := json.Marshal(map[string]any{"op": op, "body": body})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return ws.Write(ctx, websocket.MessageText, b)
}

// PushEvent sends an event of the given type with the given resources
// (channel, guild, user, member, message, ...) from login index li. The
// server adds the sequence number, timestamp and bot identity in the
// revision's field names. It returns the sequence number.
func (s *Server) PushEvent(typ string, li int, resources map[string]any) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pushLocked(typ, li, resources)
}

func (s *Server) pushLocked(typ string, li int, resources map[string]any) int64 {
	if li < 0 || li >= len(s.opts.Logins) {
		li = 0
	}
	l := s.opts.Logins[li]
	s.seq++
	body := map[string]any{"type": typ, "timestamp": time.Now().UnixMilli()}
	for k, v := range resources {
		body[k] = v
	}
	if s.opts.Revision == Current {
		body["sn"] = s.seq
		body["login"] = map[string]any{"sn": li + 1, "platform": l.Platform, "user": map[string]any{"id": l.UserID}}
	} else {
		body["id"] = s.seq
		body["platform"] = l.Platform
		body["self_id"] = l.UserID
	}
	s.events = append(s.events, event{seq: s.seq, body: body})
	for c := range s.conns {
		if c.authorized {
			// A failed write means the connection is going away; the event
			// stays buffered for its resume.
			_ = write(s.ctx, c.ws, OpEvent, body)
		}
	}
	s.notifyLocked()
	return s.seq
}

// PushMessage sends a message-created event and returns its sequence
// number.
func (s *Server) PushMessage(m Message) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pushMessageLocked(m)
}

func (s *Server) pushMessageLocked(m Message) int64 {
	return s.pushMessageAs("message-created", m)
}

// pushMessageAs sends m as an event of type typ; callers hold mu.
func (s *Server) pushMessageAs(typ string, m Message) int64 {
	if m.ID == "" {
		s.nextID++
		m.ID = "m" + strconv.Itoa(s.nextID)
	}
	if m.Time.IsZero() {
		m.Time = time.Now()
	}
	chanType := 0
	if m.Direct {
		chanType = 1
	}
	channel := map[string]any{"id": m.ChannelID, "type": chanType}
	if m.ChannelName != "" {
		channel["name"] = m.ChannelName
	}
	if m.ParentID != "" {
		channel["parent_id"] = m.ParentID
	}
	user := map[string]any{"id": m.UserID}
	if m.UserName != "" {
		user["name"] = m.UserName
	}
	if m.UserNick != "" {
		user["nick"] = m.UserNick
	}
	if m.UserIsBot {
		user["is_bot"] = true
	}
	msg := map[string]any{"id": m.ID, "content": m.Content, "created_at": m.Time.UnixMilli()}
	if m.QuoteID != "" {
		quote := map[string]any{"id": m.QuoteID}
		if m.QuoteUserID != "" {
			quote["user"] = map[string]any{"id": m.QuoteUserID}
		}
		msg["quote"] = quote
	}
	res := map[string]any{"channel": channel, "user": user, "message": msg}
	if m.GuildID != "" {
		guild := map[string]any{"id": m.GuildID}
		if m.GuildName != "" {
			guild["name"] = m.GuildName
		}
		res["guild"] = guild
	}
	if m.MemberNick != "" {
		res["member"] = map[string]any{"nick": m.MemberNick}
	}
	if s.opts.Revision == Legacy {
		// Older servers also nested the resources in the message.
		for _, k := range []string{"channel", "guild", "user", "member"} {
			if v, ok := res[k]; ok {
				msg[k] = v
			}
		}
	}
	if typ == "message-updated" {
		msg["updated_at"] = time.Now().UnixMilli()
	}
	return s.pushLocked(typ, m.Login, res)
}

func (s *Server) serveCreate(w http.ResponseWriter, r *http.Request) {
	var platform, userID string
	if s.opts.Revision == Current {
		platform, userID = r.Header.Get("Satori-Platform"), r.Header.Get("Satori-User-ID")
	} else {
		platform, userID = r.Header.Get("X-Platform"), r.Header.Get("X-Self-ID")
	}
	auth := r.Header.Get("Authorization")
	if s.opts.Token != "" && auth != "Bearer "+s.opts.Token {
		// @satorijs/server 2.x answers 403; newer servers tell a missing
		// token (401) from a wrong one.
		status := http.StatusForbidden
		if s.opts.Revision == Current && auth == "" {
			status = http.StatusUnauthorized
		}
		http.Error(w, "invalid token", status)
		return
	}
	li := -1
	for i, l := range s.opts.Logins {
		if l.Platform == platform && l.UserID == userID {
			li = i
		}
	}
	if li < 0 {
		http.Error(w, "login not found", http.StatusForbidden)
		return
	}
	var req struct {
		ChannelID string `json:"channel_id"`
		Content   string `json:"content"`
	}
	// Like the servers in use, a body that is not declared JSON is not read.
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/json" {
		data, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		_ = json.Unmarshal(data, &req)
	}
	if req.ChannelID == "" {
		http.Error(w, "channel_id is required", http.StatusBadRequest)
		return
	}

	s.mu.Lock()
	var f *fault
	if len(s.faults) > 0 {
		f = &s.faults[0]
		s.faults = s.faults[1:]
	}
	if f != nil && !f.hang {
		s.mu.Unlock()
		http.Error(w, f.body, f.status)
		return
	}
	s.nextID++
	sent := Sent{
		ID: "s" + strconv.Itoa(s.nextID), ChannelID: req.ChannelID, Content: req.Content,
		Platform: platform, UserID: userID, Authorization: auth, ContentType: r.Header.Get("Content-Type"),
	}
	s.sent = append(s.sent, sent)
	if s.opts.Echo {
		l := s.opts.Logins[li]
		s.pushMessageLocked(Message{ID: sent.ID, ChannelID: req.ChannelID, UserID: l.UserID, UserName: l.Name, Content: req.Content, Login: li})
	}
	s.notifyLocked()
	s.mu.Unlock()

	if f != nil && f.hang {
		select {
		case <-r.Context().Done():
		case <-s.ctx.Done():
		}
		return
	}
	created := map[string]any{"id": sent.ID, "content": sent.Content, "channel": map[string]any{"id": sent.ChannelID}}
	w.Header().Set("Content-Type", "application/json")
	if s.opts.SingleObject {
		_ = json.NewEncoder(w).Encode(created)
		return
	}
	_ = json.NewEncoder(w).Encode([]any{created})
}
