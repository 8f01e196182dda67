// Package prompts holds the default markdown templates of the system and
// state messages, loads them together with an optional directory of
// overrides, keeps them fresh when files change, and renders them.
//
// A template is a markdown file that starts with a YAML front matter block:
//
//	---
//	section: persona      # name (required)
//	order: 10             # place among sections (required for new ones)
//	when: {platform: telegram, chat: group}   # optional
//	cache: static         # or volatile, with a reason
//	---
//	You are {{.Bot.Name}} ...
//
// The body is a Go text/template over Data.
package prompts

import (
	"embed"
	"io/fs"
	"strings"
	"text/template"
	"time"
	"unicode"
	"unicode/utf8"
)

//go:embed templates/*.md
var embedded embed.FS

// Embedded returns the default templates.
func Embedded() fs.FS {
	sub, err := fs.Sub(embedded, "templates")
	if err != nil {
		// The directory is part of the binary; its absence is a build bug.
		panic("prompts: embedded templates missing: " + err.Error())
	}
	return sub
}

// Data is what a template sees. System sections see the bot, language,
// platform and channel; the state message and volatile sections also see
// the clock, the incoming messages, the action history and unread counts.
type Data struct {
	Bot      Bot
	Language string // response language; "" means the users' language
	Platform string // adapter: telegram, satori, console
	Channel  Channel
	// Attention is what wakes the bot in a group: "ambient" (being
	// addressed, and now and then the talk), "addressed" (only being
	// addressed), or "" (every message).
	Attention string
	// Notice is a line from the runtime for this tick (state message
	// only), such as a token budget nearly used up; "" when none.
	Notice string
	// Memory are the notes this channel may see, in a stable order; they
	// change only when a visible note does, so the system message stays
	// byte-identical between changes.
	Memory []Note
	// Tools is the catalog of the MCP tools this chat's current senders
	// may use, rendered by the runtime ("" without tools); the catalog
	// section shows it after the actions.
	Tools string
	// Now is the server time in the configured zone (state message and
	// volatile sections only; zero in static sections).
	Now time.Time
	// Incoming are the messages new since the previous tick, shown in full.
	Incoming []Message
	// Remaining counts unread messages of this channel beyond those shown.
	Remaining int
	// Actions are the action records of the current wake, in full.
	Actions []Action
	// Earlier are at most a few records of earlier wakes, one line each.
	Earlier []Action
	Unread  Unread
	// Reactions are the reactions to the bot's messages since the previous
	// request (state message only), each shown once.
	Reactions []Reaction
}

// Reaction is one reaction to a bot's message as the state message shows
// it. Sender is ready to print like Message.Name; Emoji is printable as
// it is: an emoji alone, or quoted when it holds anything else.
type Reaction struct {
	// Sender is the name of the one who reacted, ready to print like
	// Message.Name.
	Sender string
	// Bot says the one who reacted is a bot.
	Bot   bool
	Emoji string
	// MessageID is the platform id of the bot's message.
	MessageID string
	Removed   bool
}

// Bot describes the character the model plays.
type Bot struct {
	Name string
}

// Channel is the conversation the tick belongs to.
type Channel struct {
	ID      string
	Title   string
	Group   bool
	Members []string
}

// Note is one memory note as the memory section shows it. About and
// Text are data: render them with quote.
type Note struct {
	ID string
	// Scope is "user", "channel" or "global".
	Scope string
	// About is the person a user note is about, by name (or id).
	About     string
	Text      string
	Shareable bool
}

// Message is one chat message as the state message shows it. Sender and
// Content are chat data: render them with quote so that they cannot pass
// for the runtime's own text.
type Message struct {
	ID     string // the id to pass as replyTo
	Sender string
	// Name is Sender ready to print before a colon: as it is when it holds
	// only letters, digits, spaces and . _ - ', quoted otherwise.
	Name      string
	Content   string
	Time      time.Time
	ReplyTo   string
	Mentioned bool // the message mentions the bot
	Self      bool
	// Bot says the sender is a bot (another one than this).
	Bot bool
	// Answers are what other bots already answered to this message of a
	// person (state message only), so that the bot does not repeat them.
	Answers []Answer
}

// Answer is another bot's answer to a new message. Sender is ready to
// print like Message.Name; Content is chat data, cut short: render it
// with quote.
type Answer struct {
	Sender  string
	Content string
}

// Action is one action record: the flat JSON action and its result.
type Action struct {
	Name   string
	Action string // flat JSON, e.g. {"action":"continue"}
	OK     bool
	Result string
	Time   time.Time
}

// Unread summarizes unread messages across every channel.
type Unread struct {
	Total    int
	Channels []UnreadChannel
	// More is the number of channels with unread messages that Channels
	// leaves out: it lists a bounded number, the current channel first,
	// then those with the most unread.
	More int
}

// UnreadChannel is the unread count of one channel.
type UnreadChannel struct {
	ID      string
	Title   string
	Count   int
	Current bool // the channel of this tick
}

// Quote writes s as a JSON string: one line, quotes and line breaks
// escaped, so chat text stays visibly data. HTML characters and non-ASCII
// text are kept as they are; invalid UTF-8 becomes U+FFFD.
func Quote(s string) string {
	return string(AppendQuote(make([]byte, 0, len(s)+2), s))
}

const hexDigits = "0123456789abcdef"

// AppendQuote appends s to dst as Quote writes it.
func AppendQuote(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 end lines in some readers.
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Plain returns s as it is when it holds only letters, digits, spaces and
// . _ - ' (a usual name or id), and quoted otherwise, so that brackets,
// colons or line breaks in chat data cannot look like the runtime's words.
func Plain(s string) string {
	if s == "" {
		return `""`
	}
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ' || r == '_' || r == '-' || r == '.' || r == '\'' {
			continue
		}
		return Quote(s)
	}
	return s
}

var funcs = template.FuncMap{
	"quote": Quote,
	"plain": Plain,
	"join":  strings.Join,
	"quoteAll": func(ss []string) string {
		q := make([]string, len(ss))
		for i, s := range ss {
			q[i] = Quote(s)
		}
		return strings.Join(q, ", ")
	},
	"indent": func(prefix, s string) string { return strings.ReplaceAll(s, "\n", "\n"+prefix) },
	"clock":  func(t time.Time) string { return t.Format("15:04") },
	// past is a message's clock time when it is older than now's minute,
	// "" for one that arrived this minute: the stamp already says when.
	"past": func(t, now time.Time) string {
		if !t.Truncate(time.Minute).Before(now.Truncate(time.Minute)) {
			return ""
		}
		return t.Format("15:04")
	},
	"stamp": stamp,
}

// stamp is the state message's time: weekday, date, time and zone, with
// the offset when the zone's name does not say it (UTC and "+03" do).
func stamp(t time.Time) string {
	s := t.Format("Mon 2006-01-02 15:04 MST")
	if name, off := t.Zone(); off != 0 && !strings.HasPrefix(name, "+") && !strings.HasPrefix(name, "-") {
		s += t.Format(" (-07:00)")
	}
	return s
}

// SampleData returns representative data for trial renders and previews.
func SampleData(platform string, group bool) Data {
	now := time.Date(2026, 3, 14, 18, 30, 0, 0, time.UTC)
	d := Data{
		Bot:       Bot{Name: "Juni"},
		Platform:  platform,
		Channel:   Channel{ID: "1001", Title: "sample chat", Group: group, Members: []string{"Ada", "Bo"}},
		Now:       now,
		Incoming:  []Message{{ID: "m2", Sender: "Ada", Content: "hello", Time: now, Mentioned: true, ReplyTo: "m1"}},
		Actions:   []Action{{Name: "send_message", Action: `{"action":"send_message","channelId":"1001","content":"hi"}`, OK: true, Result: "sent", Time: now}},
		Earlier:   []Action{{Name: "continue", Action: `{"action":"continue"}`, OK: true, Result: "ok", Time: now}},
		Unread:    Unread{Total: 2, Channels: []UnreadChannel{{ID: "1001", Title: "sample chat", Count: 1, Current: true}, {ID: "1002", Count: 1}}},
		Remaining: 1,
		Language:  "English",
		Memory: []Note{
			{ID: "1", Scope: "global", Text: "the harbour opens at six"},
			{ID: "2", Scope: "user", About: "Ada", Text: "Ada is vegetarian", Shareable: group},
		},
	}
	return d
}
