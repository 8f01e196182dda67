package satori

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Opcodes of the Satori WebSocket signalling.
const (
	opEvent    = 0
	opPing     = 1
	opPong     = 2
	opIdentify = 3
	opReady    = 4
	opMeta     = 5
)

// Channel types of the Satori protocol.
const (
	channelText   = 0
	channelDirect = 1
)

// payload is one signal on the event stream.
type payload struct {
	Op   int             `json:"op"`
	Body json.RawMessage `json:"body,omitempty"`
}

// identifyBody authenticates and asks for a resume. Servers of the current
// revision read sn, older ones sequence; both are sent.
type identifyBody struct {
	Token    string `json:"token,omitempty"`
	SN       *int64 `json:"sn,omitempty"`
	Sequence *int64 `json:"sequence,omitempty"`
}

// flexInt accepts a JSON number or a numeric string.
type flexInt struct {
	V   int64
	Set bool
}

func (f *flexInt) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if s == "" {
			return nil
		}
		b = []byte(s)
	}
	n, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("number %s: %w", b, err)
	}
	f.V, f.Set = int64(n), true
	return nil
}

// flexString accepts a JSON string or number (ids are strings in the
// protocol; some bridges send numbers).
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		*f = ""
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*f = flexString(n.String())
	return nil
}

type wireUser struct {
	ID       flexString `json:"id"`
	Name     string     `json:"name"`
	Nick     string     `json:"nick"`
	Username string     `json:"username"` // older revision
	Nickname string     `json:"nickname"` // older revision
	UserID   flexString `json:"user_id"`  // older revision
	IsBot    bool       `json:"is_bot"`
}

func (u *wireUser) id() string {
	if u == nil {
		return ""
	}
	if u.ID != "" {
		return string(u.ID)
	}
	return string(u.UserID)
}

type wireMember struct {
	User     *wireUser `json:"user"`
	Name     string    `json:"name"`
	Nick     string    `json:"nick"`
	Nickname string    `json:"nickname"` // older revision
}

type wireChannel struct {
	ID   flexString `json:"id"`
	Type *int       `json:"type"`
	Name string     `json:"name"`
	// ParentID names the channel a thread belongs to (Discord, Lark).
	ParentID flexString `json:"parent_id"`
}

type wireGuild struct {
	ID   flexString `json:"id"`
	Name string     `json:"name"`
}

type wireMessage struct {
	ID        flexString    `json:"id"`
	MessageID flexString    `json:"message_id"` // older revision
	Content   string        `json:"content"`
	Elements  []wireElement `json:"elements"` // older servers send the tree instead of content
	Channel   *wireChannel  `json:"channel"`
	Guild     *wireGuild    `json:"guild"`
	User      *wireUser     `json:"user"`
	Member    *wireMember   `json:"member"`
	Quote     *wireMessage  `json:"quote"`
	CreatedAt flexInt       `json:"created_at"`
	Timestamp flexInt       `json:"timestamp"` // older revision
}

// wireElement is a message element as JSON: {type, attrs, children}.
type wireElement struct {
	Type     string         `json:"type"`
	Attrs    map[string]any `json:"attrs"`
	Children []wireElement  `json:"children"`
}

// content returns the message markup, rebuilt from the element tree when
// the server sent no content string.
func (m *wireMessage) content() string {
	if m.Content != "" || len(m.Elements) == 0 {
		return m.Content
	}
	var b strings.Builder
	writeElements(&b, m.Elements, 0)
	return b.String()
}

// maxElementDepth bounds the nesting rebuilt from an element tree.
const maxElementDepth = 64

func writeElements(b *strings.Builder, els []wireElement, depth int) {
	if depth > maxElementDepth {
		return
	}
	for _, el := range els {
		if el.Type == "text" {
			if s, ok := el.Attrs["content"].(string); ok {
				b.WriteString(Escape(s))
			}
			continue
		}
		if el.Type == "" || !isNameStart(el.Type[0]) {
			writeElements(b, el.Children, depth+1)
			continue
		}
		b.WriteString("<" + el.Type)
		keys := make([]string, 0, len(el.Attrs))
		for k := range el.Attrs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == "" || !isNameStart(k[0]) {
				continue
			}
			switch v := el.Attrs[k].(type) {
			case nil:
			case string:
				b.WriteString(" " + k + `="` + Escape(v) + `"`)
			case bool:
				if v {
					b.WriteString(" " + k)
				}
			default:
				b.WriteString(" " + k + `="` + Escape(fmt.Sprint(v)) + `"`)
			}
		}
		if len(el.Children) == 0 {
			b.WriteString("/>")
			continue
		}
		b.WriteString(">")
		writeElements(b, el.Children, depth+1)
		b.WriteString("</" + el.Type + ">")
	}
}

func (m *wireMessage) id() string {
	if m == nil {
		return ""
	}
	if m.ID != "" {
		return string(m.ID)
	}
	return string(m.MessageID)
}

// wireLogin is a login of the current revision (platform and user) or of
// the older one (platform and self_id).
type wireLogin struct {
	SN       flexInt    `json:"sn"`
	Platform string     `json:"platform"`
	User     *wireUser  `json:"user"`
	SelfID   flexString `json:"self_id"`
	Status   *int       `json:"status"`
	Adapter  string     `json:"adapter"`
}

func (l *wireLogin) selfID() string {
	if l == nil {
		return ""
	}
	if id := l.User.id(); id != "" {
		return id
	}
	return string(l.SelfID)
}

type readyBody struct {
	Logins []wireLogin `json:"logins"`
}

// wireEvent is an EVENT body of either revision: the sequence number is
// sn (current) or id (older), the bot is login.platform/login.user.id
// (current) or platform/self_id (older). Resources are promoted to the
// top level in the current revision and nested in message in some older
// servers; both places are read.
type wireEvent struct {
	SN        flexInt      `json:"sn"`
	ID        flexInt      `json:"id"`
	Type      string       `json:"type"`
	Timestamp flexInt      `json:"timestamp"`
	Login     *wireLogin   `json:"login"`
	Platform  string       `json:"platform"`
	SelfID    flexString   `json:"self_id"`
	Channel   *wireChannel `json:"channel"`
	Guild     *wireGuild   `json:"guild"`
	User      *wireUser    `json:"user"`
	Member    *wireMember  `json:"member"`
	Message   *wireMessage `json:"message"`
	// Emoji is the emoji of a reaction event (reaction.go).
	Emoji *wireEmoji `json:"emoji"`
}

// seq returns the event's sequence number, if it has one.
func (e *wireEvent) seq() (int64, bool) {
	if e.SN.Set {
		return e.SN.V, true
	}
	if e.ID.Set {
		return e.ID.V, true
	}
	return 0, false
}

// bot returns the platform and self id the event belongs to.
func (e *wireEvent) bot() (platform, selfID string) {
	platform, selfID = e.Platform, string(e.SelfID)
	if e.Login != nil {
		if e.Login.Platform != "" {
			platform = e.Login.Platform
		}
		if id := e.Login.selfID(); id != "" {
			selfID = id
		}
	}
	return platform, selfID
}

func (e *wireEvent) channel() *wireChannel {
	if e.Channel != nil {
		return e.Channel
	}
	if e.Message != nil {
		return e.Message.Channel
	}
	return nil
}

func (e *wireEvent) guild() *wireGuild {
	if e.Guild != nil {
		return e.Guild
	}
	if e.Message != nil {
		return e.Message.Guild
	}
	return nil
}

func (e *wireEvent) user() *wireUser {
	if e.User != nil {
		return e.User
	}
	if e.Message != nil {
		if e.Message.User != nil {
			return e.Message.User
		}
		if e.Message.Member != nil {
			return e.Message.Member.User
		}
	}
	if e.Member != nil {
		return e.Member.User
	}
	return nil
}

func (e *wireEvent) member() *wireMember {
	if e.Member != nil {
		return e.Member
	}
	if e.Message != nil {
		return e.Message.Member
	}
	return nil
}

// wireCreated is what message.create answers: an array of messages, or a
// single one on some servers.
func parseCreated(body []byte) (string, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return "", nil
	}
	if body[0] == '[' {
		var list []wireMessage
		if err := json.Unmarshal(body, &list); err != nil {
			return "", fmt.Errorf("decode created messages: %w", err)
		}
		for _, m := range list {
			if id := m.id(); id != "" {
				return id, nil
			}
		}
		return "", nil
	}
	var m wireMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return "", fmt.Errorf("decode created message: %w", err)
	}
	return m.id(), nil
}
