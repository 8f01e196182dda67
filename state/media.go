package state

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Media kinds a message can carry. The adapters map their platform's
// attachments onto these; the media room decides what the model sees of
// each.
const (
	MediaPhoto     = "photo"
	MediaSticker   = "sticker"
	MediaVoice     = "voice"
	MediaAudio     = "audio"
	MediaVideoNote = "video_note"
	MediaVideo     = "video"
	MediaDocument  = "document"
	MediaAnimation = "animation"
)

// Media is one attachment of a message, as the platform announced it.
// Nothing is fetched when it arrives: the adapter records where the file
// is and what it is, and the file is fetched only if the message is shown
// to the model.
type Media struct {
	Kind string `json:"kind"`
	// FileID is how the adapter fetches the file (Telegram's file_id, a
	// Satori resource URL).
	FileID string `json:"fileId,omitempty"`
	// UniqueID names the file across chats and bots (Telegram's
	// file_unique_id, a Satori resource URL): the cache key of what was
	// fetched and made of it.
	UniqueID string `json:"uniqueId,omitempty"`
	Mime     string `json:"mime,omitempty"`
	Name     string `json:"name,omitempty"`
	// Size is the size the platform announced, in bytes (0: unknown).
	Size int64 `json:"size,omitempty"`
	// Duration of a voice note, audio or video, in seconds.
	Duration int    `json:"duration,omitempty"`
	Width    int    `json:"width,omitempty"`
	Height   int    `json:"height,omitempty"`
	Emoji    string `json:"emoji,omitempty"`
	Set      string `json:"set,omitempty"`
	Animated bool   `json:"animated,omitempty"`
	// Thumb is the FileID of a preview image (a video note's thumbnail),
	// fetched instead of the file when the file itself is not an image.
	Thumb       string `json:"thumb,omitempty"`
	ThumbUnique string `json:"thumbUnique,omitempty"`

	// Text is what the model is shown of the file: a description, a
	// transcript, or why there is neither. The media room fills it when
	// the message is first shown; empty means not yet looked at.
	Text string `json:"text,omitempty"`
	// Hash is the SHA-256 of the fetched bytes, hex (empty: not fetched).
	Hash string `json:"hash,omitempty"`
}

// MaxMediaPerMessage bounds the attachments one message keeps.
const MaxMediaPerMessage = 8

// Validate reports what is wrong with an attachment.
func (m Media) Validate() error {
	var errs []error
	if m.Kind == "" {
		errs = append(errs, errors.New("media: empty kind"))
	}
	if m.Size < 0 {
		errs = append(errs, fmt.Errorf("media: negative size %d", m.Size))
	}
	return errors.Join(errs...)
}

// Image is an image part of a request message: the bytes go to the model,
// the record keeps the hash and type only.
type Image struct {
	Mime string `json:"mime"`
	Hash string `json:"hash"`
	Data []byte `json:"-"`
}

// MediaEntry is what was made of one fetched file, kept under the
// platform's file id so that the same file is fetched, described or
// transcribed once whatever the number of messages, chats or ticks that
// show it.
type MediaEntry struct {
	// Key is "<platform>:<unique id>".
	Key  string `json:"key"`
	Kind string `json:"kind"`
	Mime string `json:"mime,omitempty"`
	// Hash is the SHA-256 of the bytes, hex.
	Hash string `json:"hash,omitempty"`
	// Text is the description, the transcript or why there is none;
	// empty while the file is fetched but not yet looked at.
	Text string `json:"text,omitempty"`
	// Tokens is what the vision or speech call cost (0: none was made).
	Tokens int64 `json:"tokens,omitempty"`
	Size   int64 `json:"size,omitempty"`
	// Data are the bytes of an image (kept for inline requests and the
	// inspector); other files keep theirs only until they are looked at.
	Data    []byte    `json:"-"`
	Created time.Time `json:"created"`
}

// MediaCache keeps fetched files and what was made of them.
type MediaCache interface {
	// CachedMedia returns the entry stored under key, or ErrNotFound.
	CachedMedia(ctx context.Context, key string) (MediaEntry, error)
	// PutMedia stores e under its key, replacing an earlier entry. A zero
	// Created is set to now.
	PutMedia(ctx context.Context, e MediaEntry) error
	// MediaImage returns the bytes and type of a stored image by hash, or
	// ErrNotFound.
	MediaImage(ctx context.Context, hash string) (Image, error)
	// SetMessageMedia replaces the attachments of a stored message (with
	// their Text and Hash filled), so that the history shows them as they
	// were first shown. An unknown id is ignored.
	SetMessageMedia(ctx context.Context, channelID string, id int64, media []Media) error
}

// Label is how a message shows an attachment to the model: its kind and
// the details it has, then what was made of it ("[photo: a grey cat on
// a keyboard]", "[voice 0:12: “see you at five”]", "[sticker 😂 from
// Cats]", "[document notes.pdf, 1.2 MB]").
func (m Media) Label() string {
	var b strings.Builder
	b.WriteByte('[')
	switch m.Kind {
	case MediaVoice, MediaAudio, MediaVideoNote, MediaVideo:
		b.WriteString(kindWord(m.Kind))
		if m.Name != "" {
			b.WriteByte(' ')
			b.WriteString(labelText(m.Name))
		}
		if m.Duration > 0 {
			fmt.Fprintf(&b, " %d:%02d", m.Duration/60, m.Duration%60)
		}
	case MediaSticker:
		b.WriteString("sticker")
		if m.Emoji != "" {
			b.WriteByte(' ')
			b.WriteString(labelText(m.Emoji))
		}
		if m.Set != "" {
			b.WriteString(" from ")
			b.WriteString(labelText(m.Set))
		}
	case MediaDocument:
		b.WriteString("document")
		if m.Name != "" {
			b.WriteByte(' ')
			b.WriteString(labelText(m.Name))
		}
		if m.Size > 0 {
			b.WriteString(", ")
			b.WriteString(SizeText(m.Size))
		}
	default:
		b.WriteString(kindWord(m.Kind))
		if m.Name != "" {
			b.WriteByte(' ')
			b.WriteString(labelText(m.Name))
		}
	}
	if t := labelText(m.Text); t != "" {
		b.WriteString(": ")
		b.WriteString(t)
	}
	b.WriteByte(']')
	return b.String()
}

// labelText is s as a label holds it: on one line, with no bracket that
// could close the label early, so a file name or a description cannot
// pass for the runtime's words.
func labelText(s string) string {
	s = strings.Join(strings.Fields(CleanText(s)), " ")
	return strings.NewReplacer("[", "(", "]", ")").Replace(s)
}

// kindWord is the word a label uses for a kind.
func kindWord(kind string) string {
	switch kind {
	case MediaVideoNote:
		return "video message"
	case "":
		return "file"
	}
	return CleanText(kind)
}

// SizeText writes a byte count the way people read it ("1.2 MB").
func SizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
	case n >= 1<<10:
		return strconv.FormatInt((n+512)>>10, 10) + " KB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// WithMedia is the text of m as the model reads it: the labels of its
// attachments, then its Content.
func (m Message) WithMedia() string {
	if len(m.Media) == 0 {
		return m.Content
	}
	var b strings.Builder
	for i, md := range m.Media {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(md.Label())
	}
	if m.Content != "" {
		b.WriteByte(' ')
		b.WriteString(m.Content)
	}
	return b.String()
}
