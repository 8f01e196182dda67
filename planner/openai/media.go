package openai

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/airi-go/airi/state"
)

// chatMessage is one request message in go-openai's form: a message with
// images becomes text and image parts, each image a base64 data URL.
func chatMessage(m state.ChatMessage) goopenai.ChatCompletionMessage {
	if len(m.Images) == 0 {
		return goopenai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
	}
	parts := make([]goopenai.ChatMessagePart, 0, len(m.Images)+1)
	if m.Content != "" {
		parts = append(parts, goopenai.ChatMessagePart{Type: goopenai.ChatMessagePartTypeText, Text: m.Content})
	}
	for _, img := range m.Images {
		parts = append(parts, goopenai.ChatMessagePart{Type: goopenai.ChatMessagePartTypeImageURL,
			ImageURL: &goopenai.ChatMessageImageURL{URL: DataURL(img), Detail: goopenai.ImageURLDetailAuto}})
	}
	return goopenai.ChatCompletionMessage{Role: m.Role, MultiContent: parts}
}

// DataURL is an image as a data URL ("data:image/png;base64,...").
func DataURL(img state.Image) string {
	mime := img.Mime
	if !strings.HasPrefix(mime, "image/") {
		mime = "image/jpeg"
	}
	var b strings.Builder
	b.Grow(len(mime) + 13 + base64.StdEncoding.EncodedLen(len(img.Data)))
	b.WriteString("data:")
	b.WriteString(mime)
	b.WriteString(";base64,")
	b.WriteString(base64.StdEncoding.EncodeToString(img.Data))
	return b.String()
}

// Transcribe sends audio to POST {BaseURL}/audio/transcriptions (OpenAI,
// Groq, whisper.cpp's server and faster-whisper servers speak it) with
// the client's model, and returns the text. name is the file name the
// server sees; its extension tells most servers the format. One attempt:
// a failed transcription leaves a placeholder, it is not worth a wait.
func (c *Client) Transcribe(ctx context.Context, audio []byte, name string) (string, error) {
	if len(audio) == 0 {
		return "", errors.New("transcribe: no audio")
	}
	actx, cancel := context.WithTimeoutCause(ctx, c.cfg.Timeout, errAttemptTimeout)
	defer cancel()
	ex := &exchange{}
	out, err := c.api.CreateTranscription(withExchange(actx, ex), goopenai.AudioRequest{
		Model: c.cfg.Model, FilePath: name, Reader: bytes.NewReader(audio), Format: goopenai.AudioResponseFormatJSON,
	})
	if err != nil {
		return "", fmt.Errorf("transcribe: %w", c.classify(ctx, actx, ex, err))
	}
	return strings.TrimSpace(out.Text), nil
}
