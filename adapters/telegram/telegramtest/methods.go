package telegramtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
)

// ServeHTTP answers Bot API calls (/bot<token>/<method>) and the control
// API (/_control/...).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/_control/") {
		s.serveControl(w, r)
		return
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, "/file/bot"); ok {
		token, filePath, _ := strings.Cut(rest, "/")
		s.serveFile(w, r, token, filePath)
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
	if faulted && !fault.Drop && !fault.Hold {
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
	case "setMessageReaction":
		status, result, desc = s.setMessageReaction(p)
	case "getChat":
		status, result, desc = s.getChat(p)
	case "getFile":
		status, result, desc = s.getFile(p)
	case "setWebhook":
		status, result, desc = s.setWebhook(p)
	case "deleteWebhook":
		s.dropWebhook(p.str("drop_pending_updates") == "true")
		status, result = http.StatusOK, true
	case "getWebhookInfo":
		status, result = http.StatusOK, s.webhookInfo()
	case "close", "logOut":
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
	if faulted && fault.Hold {
		<-r.Context().Done()
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
	s.setAllowedUpdates(p)
	if s.hook.URL != "" {
		s.mu.Unlock()
		return http.StatusConflict, nil, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"
	}
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
	var relay func() // runs after mu is released: it takes the others'
	defer func() {
		if relay != nil {
			relay()
		}
	}()
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
	s.sent = append(s.sent, Sent{ChatID: chat.ID, MessageID: m.MessageID, Text: visible, Raw: raw, ParseMode: mode, ReplyTo: replyTo, Thread: thread, At: s.opts.Now()})
	s.notify()
	if r := s.rooms[chat.ID]; r != nil {
		cp := *m
		relay = func() { r.relay(s, cp) }
	}
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
