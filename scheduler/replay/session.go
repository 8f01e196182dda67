// Package replay reads and writes recorded sessions and plays them back
// through a runtime, reporting where the runtime now acts differently from
// the recording and, on request, how its prompts changed.
//
// # Session format, version 1
//
// A session is JSON Lines: one JSON object per line, keys in a fixed order
// so that files diff well. The first line is the header:
//
//	{"airi_session":1,"channel":{...},"bot":"Juni","platform":"console","turn":"send-ends","settings":{...}}
//
// channel is the conversation as the store knows it (id, platform, group,
// title, members); bot is the name the bot went by; platform is the adapter
// that reached the channel; turn is the turn semantics the session ran
// under ("send-ends"; absent for sessions recorded under the earlier
// "continue" semantics); attention is the group mode ("ambient",
// "addressed"; absent means "all", every message woke the channel); settings are the knobs that change what the
// runtime renders or decides (history window, iterations per wake,
// response language, a configured bot name, interrupts, the longest sleep);
// tools, when the bot ran with any, are its tool catalog and who could
// use each tool.
//
// Then come the lines in time order, each an event, a tick or a reminder:
//
//	{"type":"event","time":"...","platformId":"m1","sender":"mika","content":"hi"}
//	{"type":"tick","n":1,"wake":7,"trigger":"message","now":"...","request":[...],"raw":"...",...}
//	{"type":"reminder","time":"...","content":"call the vet","messageId":"512"}
//
// A reminder line is a reminder the bot sent verbatim at its due time;
// replay runs the reminder loop at that time and compares what it sends.
//
// An event is an incoming message with the time it arrived (platform
// message id, sender, content, reply-to, whether it mentions the bot,
// replies to the bot or comes from a bot, and, in sessions whose header
// names the group mode, the attention decision it got), or a reaction to
// one of the bot's messages (reaction, the emoji; removed). A
// tick is one model call: now is the clock the runtime used, wake groups
// the ticks of one wake, trigger says why the wake started, request holds
// the messages sent to the model, raw the answer as returned, then usage,
// latency, the normalized action or the parse error or the model error,
// the parser's notes, the result the model was shown and the effects (the
// messages sent, the notes written, the tools called with their
// arguments, outcome and text). n numbers the ticks of a session from 1,
// for people.
//
// A file may hold several sessions one after another, each starting with
// its header line (airi ticks export writes one per channel). Blank lines
// are ignored. Readers refuse a version they do not know.
package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/state"
)

// Version is the session format this package reads and writes.
const Version = 1

// Line types of a session.
const (
	TypeEvent = "event"
	TypeTick  = "tick"
)

// Header is the first line of a session.
type Header struct {
	// Session is the format version (the "airi_session" key).
	Session  int           `json:"airi_session"`
	Channel  state.Channel `json:"channel"`
	Bot      string        `json:"bot,omitempty"`
	Platform string        `json:"platform"`
	// Turn is the turn semantics the session ran under ("send-ends");
	// absent means "continue", the semantics of sessions recorded before.
	Turn string `json:"turn,omitempty"`
	// Attention is the group mode the session ran under ("ambient",
	// "addressed"); absent means "all": every message woke the channel,
	// as in sessions recorded before attention policies.
	Attention string   `json:"attention,omitempty"`
	Settings  Settings `json:"settings"`
	// Tools are the tools the bot could call and who could use them;
	// absent when it ran without tools. Replay offers the same catalog
	// under the same rules and answers each call from its tick.
	Tools *Tools `json:"tools,omitempty"`
}

// AttentionAll is the group mode of a session whose header names none.
const AttentionAll = "all"

// AttentionMode returns the group mode the session ran under.
func (h *Header) AttentionMode() string {
	if h.Attention == "" {
		return AttentionAll
	}
	return h.Attention
}

// TurnSemantics returns the turn semantics the session ran under.
func (h *Header) TurnSemantics() scheduler.Turn {
	if h.Turn == "" {
		return scheduler.TurnContinue
	}
	return scheduler.Turn(h.Turn)
}

// turnField is the header value for t: absent for the earlier semantics,
// so that sessions recorded under them keep their header as it was.
func turnField(t scheduler.Turn) string {
	if t == scheduler.TurnContinue {
		return ""
	}
	return string(t)
}

// Settings are the runtime settings a replay needs to render and decide
// the same way the recording did. Zero values mean the runtime's defaults.
type Settings struct {
	// BotName is the configured bot name; empty means the persona's name,
	// so that a persona edit renames the bot in replay too.
	BotName       string `json:"botName,omitempty"`
	Language      string `json:"language,omitempty"`
	History       int    `json:"history,omitempty"`
	MaxIterations int    `json:"maxIterations,omitempty"`
	// Interrupt is true when a new message cancelled a model call in flight.
	Interrupt  bool  `json:"interrupt"`
	SleepMaxMS int64 `json:"sleepMaxMs,omitempty"`
	SendUser   bool  `json:"sendUser,omitempty"`
	// AllowChannels lists the channels the bot could act in (empty: all).
	AllowChannels []string `json:"allowChannels,omitempty"`
}

// Event is an incoming message and the time it arrived.
type Event struct {
	Type       string    `json:"type"`
	Time       time.Time `json:"time"`
	PlatformID string    `json:"platformId,omitempty"`
	SenderID   string    `json:"senderId,omitempty"`
	Sender     string    `json:"sender"`
	Content    string    `json:"content"`
	ReplyTo    string    `json:"replyTo,omitempty"`
	Mentioned  bool      `json:"mentioned,omitempty"`
	// ReplyToSelf: the message replies to one of the bot's own.
	ReplyToSelf bool `json:"replyToSelf,omitempty"`
	// FromBot: the sender is a bot.
	FromBot bool `json:"fromBot,omitempty"`
	// Decision is what the attention policy made of the message (the wake
	// reason it caused, or why it woke nothing); written only in sessions
	// whose header names the group mode. Replay drives the wakes as
	// recorded and does not compare it.
	Decision string `json:"decision,omitempty"`
	// Expect, when set, says what the bot should do about this message;
	// airi eval scores it, replay ignores it.
	Expect *Expect `json:"expect,omitempty"`
	// Change, when set, makes the line the edit (ChangeEdited, Content
	// the new text) or the deletion (ChangeDeleted) of the earlier
	// message with the same PlatformID rather than a message of its own.
	Change string `json:"change,omitempty"`
	// Media are the message's attachments as the model was shown them:
	// the file ids, the hash of the bytes and the description or
	// transcript, never the bytes, so a session replays offline.
	Media []state.Media `json:"media,omitempty"`
	// Reaction, when set, makes the line a reaction (this emoji) to the
	// bot's message with the PlatformID rather than a message; Removed
	// says it was taken off.
	Reaction string `json:"reaction,omitempty"`
	Removed  bool   `json:"removed,omitempty"`
}

// IsReaction reports whether the line is a reaction, not a message.
func (e *Event) IsReaction() bool { return e.Reaction != "" }

// ReactionEventOf returns the event line of a stored reaction.
func ReactionEventOf(r state.Reaction) *Event {
	return &Event{
		Type: TypeEvent, Time: r.Time.UTC(), PlatformID: r.MessageID, SenderID: r.SenderID, Sender: r.SenderName,
		FromBot: r.FromBot, Reaction: r.Emoji, Removed: r.Removed,
	}
}

// ReactionOf returns a reaction event as the reaction an adapter would
// deliver to channel.
func (e *Event) ReactionOf(channelID string) state.Reaction {
	return state.Reaction{
		ChannelID: channelID, MessageID: e.PlatformID, SenderID: e.SenderID, SenderName: e.Sender,
		FromBot: e.FromBot, Emoji: e.Reaction, Removed: e.Removed, Time: e.Time,
	}
}

// Values of Event.Change.
const (
	ChangeEdited  = "edited"
	ChangeDeleted = "deleted"
)

// Message returns the event as the message an adapter would deliver to channel.
func (e *Event) Message(channelID string) state.Message {
	return state.Message{
		ChannelID: channelID, PlatformID: e.PlatformID, SenderID: e.SenderID, SenderName: e.Sender,
		Content: e.Content, ReplyTo: e.ReplyTo, Mentioned: e.Mentioned, Time: e.Time,
		ReplyToSelf: e.ReplyToSelf, FromBot: e.FromBot,
		Edited: e.Change == ChangeEdited, Deleted: e.Change == ChangeDeleted,
		Media: e.Media,
	}
}

// EventsOf returns the event lines of a stored incoming message: the
// message as it arrived (with the text before its latest edit), then
// its edit and its deletion, each at the time it came. Only the latest
// edit is stored, so a message edited several times keeps its first and
// last text in a session.
func EventsOf(m state.Message) []*Event {
	first := EventOf(m)
	if !m.Edited && !m.Deleted {
		return []*Event{first}
	}
	at := m.Changed.UTC()
	if m.Changed.IsZero() {
		at = first.Time
	}
	out := []*Event{first}
	if m.Edited {
		first.Content = m.Previous
		edit := EventOf(m)
		edit.Time, edit.Change, edit.Decision, edit.Media = at, ChangeEdited, "", nil
		out = append(out, edit)
	}
	if m.Deleted {
		del := &Event{Type: TypeEvent, Time: at, PlatformID: m.PlatformID, SenderID: m.SenderID, Sender: m.SenderName, Change: ChangeDeleted}
		out = append(out, del)
	}
	return out
}

// EventOf returns the event line of an incoming message.
func EventOf(m state.Message) *Event {
	return &Event{
		Type: TypeEvent, Time: m.Time.UTC(), PlatformID: m.PlatformID, SenderID: m.SenderID, Sender: m.SenderName,
		Content: m.Content, ReplyTo: m.ReplyTo, Mentioned: m.Mentioned,
		ReplyToSelf: m.ReplyToSelf, FromBot: m.FromBot, Decision: m.Decision,
		Media: m.Media,
	}
}

// Tick is one tick line of a session: the tick record as the store keeps
// it, with the line's type and its number in the session. The record's id,
// channel and sections are not part of the format (the header names the
// channel, and replay renders the sections again).
type Tick struct {
	Type string `json:"type"`
	N    int    `json:"n,omitempty"`
	state.Tick
	// Expect, when set, names the action this tick should have taken;
	// airi eval scores it, replay ignores it.
	Expect *TickExpect `json:"expect,omitempty"`
}

// TickOf returns the tick line of a stored tick record.
func TickOf(t state.Tick) (*Tick, error) {
	id := t.ID
	t.ID, t.ChannelID, t.Sections = 0, "", nil
	t.Now = t.Now.UTC()
	t.Action = compact(t.Action)
	effects, err := canonicalEffects(t.Effects, json.Unmarshal)
	if err != nil {
		return nil, fmt.Errorf("decode effects of tick %d: %w", id, err)
	}
	t.Effects = effects
	return &Tick{Type: TypeTick, Tick: t}, nil
}

// EffectList returns the tick's effects (nil when it has none or they do
// not decode; Read and TickOf refuse effects that do not).
func (t *Tick) EffectList() []actions.Effect {
	var out []actions.Effect
	if len(t.Effects) == 0 || json.Unmarshal(t.Effects, &out) != nil {
		return nil
	}
	return out
}

// canonicalEffects decodes effects with decode and encodes them again as
// a session writes them: fields in the order of actions.Effect, chat text
// unescaped. No effects give nil.
func canonicalEffects(raw json.RawMessage, decode func([]byte, any) error) (json.RawMessage, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var effects []actions.Effect
	if err := decode(raw, &effects); err != nil {
		return nil, err
	}
	if len(effects) == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(effects); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Interrupted reports a call cancelled because a new message arrived.
func (t *Tick) Interrupted() bool {
	return len(t.ModelError) >= len(interruptedPrefix) && t.ModelError[:len(interruptedPrefix)] == interruptedPrefix
}

// interruptedPrefix starts the model error the scheduler records for a
// call cancelled by a new message.
const interruptedPrefix = "interrupted"

// Item is one line after the header: exactly one of Event, Tick and
// Reminder is set.
type Item struct {
	Event    *Event
	Tick     *Tick
	Reminder *Reminder
}

// message reports whether the item is a message (or its change), the
// events that can interrupt a call or hold a send back; a reaction does
// neither.
func (it Item) message() bool { return it.Event != nil && !it.Event.IsReaction() }

// Session is one recorded conversation: its header and its lines in time order.
type Session struct {
	Header Header
	Items  []Item
}

// Ticks returns the session's ticks in order.
func (s *Session) Ticks() []*Tick {
	var out []*Tick
	for _, it := range s.Items {
		if it.Tick != nil {
			out = append(out, it.Tick)
		}
	}
	return out
}

// Write writes s as JSON Lines, numbering its ticks from 1.
func Write(w io.Writer, s *Session) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	// Chat text is shown to people as is: no \u003c for "<".
	enc.SetEscapeHTML(false)
	h := s.Header
	h.Session = Version
	if err := enc.Encode(h); err != nil {
		return fmt.Errorf("write session header: %w", err)
	}
	n := 0
	for i, it := range s.Items {
		var err error
		switch {
		case it.Event != nil:
			e := *it.Event
			e.Type = TypeEvent
			err = enc.Encode(e)
		case it.Tick != nil:
			n++
			t := *it.Tick
			t.Type, t.N = TypeTick, n
			t.Action = compact(t.Action)
			err = enc.Encode(t)
		case it.Reminder != nil:
			r := *it.Reminder
			r.Type = TypeReminder
			err = enc.Encode(r)
		default:
			err = errors.New("empty item")
		}
		if err != nil {
			return fmt.Errorf("write session line %d: %w", i+2, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write session: %w", err)
	}
	return nil
}

func compact(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

// maxLine bounds one line of a session file; a tick holds its whole request.
const maxLine = 16 << 20

// Read reads every session of a JSON Lines stream. Errors name the line.
func Read(r io.Reader) ([]*Session, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var (
		out  []*Session
		cur  *Session
		line int
	)
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var probe struct {
			Session *int   `json:"airi_session"`
			Type    string `json:"type"`
		}
		if err := json.Unmarshal(text, &probe); err != nil {
			return nil, fmt.Errorf("line %d: not a JSON object: %w", line, err)
		}
		switch {
		case probe.Session != nil:
			if *probe.Session != Version {
				return nil, fmt.Errorf("line %d: session format version %d; this airi reads version %d", line, *probe.Session, Version)
			}
			cur = &Session{}
			if err := strictDecode(text, &cur.Header); err != nil {
				return nil, fmt.Errorf("line %d: header: %w", line, err)
			}
			if err := cur.Header.Channel.Validate(); err != nil {
				return nil, fmt.Errorf("line %d: header: %w", line, err)
			}
			if err := cur.Header.TurnSemantics().Validate(); err != nil {
				return nil, fmt.Errorf("line %d: header: %w", line, err)
			}
			switch cur.Header.AttentionMode() {
			case "ambient", "addressed", AttentionAll:
			default:
				return nil, fmt.Errorf("line %d: header: unknown attention %q: want ambient, addressed or all", line, cur.Header.Attention)
			}
			if cur.Header.Platform == "" {
				cur.Header.Platform = cur.Header.Channel.Platform
			}
			out = append(out, cur)
		case cur == nil:
			return nil, fmt.Errorf("line %d: a session starts with a header line {\"airi_session\": %d, ...}", line, Version)
		case probe.Type == TypeEvent:
			var e Event
			if err := strictDecode(text, &e); err != nil {
				return nil, fmt.Errorf("line %d: event: %w", line, err)
			}
			if e.Time.IsZero() {
				return nil, fmt.Errorf("line %d: event without a time", line)
			}
			if err := e.Expect.Validate(); err != nil {
				return nil, fmt.Errorf("line %d: event: %w", line, err)
			}
			if e.Change != "" && e.Change != ChangeEdited && e.Change != ChangeDeleted {
				return nil, fmt.Errorf("line %d: event: change %q (want %q or %q)", line, e.Change, ChangeEdited, ChangeDeleted)
			}
			if e.Change != "" && e.PlatformID == "" {
				return nil, fmt.Errorf("line %d: event: a change (%s) needs the platformId of the message it changes", line, e.Change)
			}
			if e.IsReaction() && (e.PlatformID == "" || e.Change != "" || e.Content != "" || len(e.Media) > 0) {
				return nil, fmt.Errorf("line %d: event: a reaction needs the platformId of the bot's message, and no change, content or media", line)
			}
			if e.Removed && !e.IsReaction() {
				return nil, fmt.Errorf("line %d: event: removed without a reaction", line)
			}
			cur.Items = append(cur.Items, Item{Event: &e})
		case probe.Type == TypeTick:
			var t Tick
			if err := strictDecode(text, &t); err != nil {
				return nil, fmt.Errorf("line %d: tick: %w", line, err)
			}
			if t.Now.IsZero() {
				return nil, fmt.Errorf("line %d: tick without a time (now)", line)
			}
			if t.Expect != nil && t.Expect.Action == "" {
				return nil, fmt.Errorf("line %d: tick: expect names no action (want {\"action\": \"send_message\"}, for example)", line)
			}
			if err := t.checkFormat(); err != nil {
				return nil, fmt.Errorf("line %d: tick: %w", line, err)
			}
			effects, err := canonicalEffects(t.Effects, strictDecode)
			if err != nil {
				return nil, fmt.Errorf("line %d: tick: effects: %w", line, err)
			}
			t.Effects = effects
			cur.Items = append(cur.Items, Item{Tick: &t})
		case probe.Type == TypeReminder:
			r, err := readReminder(text)
			if err != nil {
				return nil, fmt.Errorf("line %d: reminder: %w", line, err)
			}
			cur.Items = append(cur.Items, Item{Reminder: r})
		default:
			return nil, fmt.Errorf("line %d: unknown line type %q (want %q, %q or %q)", line, probe.Type, TypeEvent, TypeTick, TypeReminder)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	if len(out) == 0 {
		return nil, errors.New("no session header found")
	}
	return out, nil
}

// checkFormat refuses the fields of a tick record that a session's tick
// line does not have.
func (t *Tick) checkFormat() error {
	switch {
	case t.ID != 0:
		return errors.New(`json: unknown field "id"`)
	case t.ChannelID != "":
		return errors.New(`json: unknown field "channelId"`)
	case t.Sections != nil:
		return errors.New(`json: unknown field "sections"`)
	}
	return nil
}

// strictDecode refuses keys the format does not define, so a typo in a
// hand-edited session is reported instead of silently ignored.
func strictDecode(text []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	return nil
}

// ReadFile reads every session of a file.
func ReadFile(path string) ([]*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	defer f.Close()
	ss, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", path, err)
	}
	return ss, nil
}
