package telegramtest

import (
	"encoding/json"
	"time"
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
	VideoNote       any      `json:"video_note,omitempty"`
	Animation       any      `json:"animation,omitempty"`
	// ForumTopicCreated and ForumTopicEdited make a service message of
	// a forum: {"name": ..., "icon_color": ...}.
	ForumTopicCreated map[string]any `json:"forum_topic_created,omitempty"`
	ForumTopicEdited  map[string]any `json:"forum_topic_edited,omitempty"`
}

// Update is one entry of getUpdates.
type Update struct {
	UpdateID      int      `json:"update_id"`
	Message       *Message `json:"message,omitempty"`
	EditedMessage *Message `json:"edited_message,omitempty"`
	// MessageReaction is a change of a user's reactions (reaction.go).
	MessageReaction *MessageReaction `json:"message_reaction,omitempty"`

	// raw, when set, is sent instead of the fields above (see PostRaw).
	raw map[string]any
}

// MarshalJSON writes the update, or for one queued by PostRaw its raw
// fields with the update id.
func (u Update) MarshalJSON() ([]byte, error) {
	if u.raw == nil {
		type plain Update
		return json.Marshal(plain(u))
	}
	fields := map[string]any{}
	for k, v := range u.raw {
		fields[k] = v
	}
	fields["update_id"] = u.UpdateID
	return json.Marshal(fields)
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
	// Media is "photo", "sticker" (Emoji, Set, Animated), "voice",
	// "audio" (FileName, Performer, Title), "video", "video_note",
	// "animation", "document" (FileName), or empty.
	Media     string
	Emoji     string
	Set       string
	Animated  bool
	FileName  string
	Performer string
	Title     string
	// File is the attachment's bytes, served after getFile; nil serves a
	// small stand-in (a real PNG image for a photo).
	File []byte
	// FileSize, when set, is the size announced instead of len(File): a
	// large file announced without holding its bytes (zeros are served),
	// or a size that does not match what is served.
	FileSize int64
	// FileID and UniqueID replace the ids the server makes up for each
	// message, so that two messages can carry the same file.
	FileID   string
	UniqueID string
	// Mime is the announced mime_type [the kind's usual type].
	Mime string
	// Duration is a voice note's, audio's or video's length in seconds
	// [the kind's default].
	Duration int
	// Thumb is the thumbnail's bytes [a small PNG image]; a document has
	// a thumbnail only when it is set. For a photo it is the smaller of
	// the two sizes offered.
	Thumb []byte
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
	// At is when the server accepted the message, by its clock (Options.Now).
	At time.Time `json:"at"`
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
	// Hold performs the call, then answers nothing until the client goes
	// away: the call of a process killed right after making it.
	Hold bool `json:"hold,omitempty"`
	// OnlyParseMode applies the fault only to sendMessage calls that carry
	// a parse_mode (a plain-text retry then passes).
	OnlyParseMode bool `json:"only_parse_mode,omitempty"`
	// Times is how many calls it applies to [1].
	Times int `json:"times,omitempty"`
}
