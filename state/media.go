package state

import (
	"errors"
	"fmt"
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
