package state

import (
	"encoding/json"
	"time"
)

// ChatMessage is one message of a model request.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// Images go with the text as image parts (media shown inline).
	Images []Image `json:"images,omitempty"`
}

// Equal says m and o would reach the model alike: same role, text and
// images (by type and hash).
func (m ChatMessage) Equal(o ChatMessage) bool {
	if m.Role != o.Role || m.Content != o.Content || len(m.Images) != len(o.Images) {
		return false
	}
	for i, img := range m.Images {
		if img.Mime != o.Images[i].Mime || img.Hash != o.Images[i].Hash {
			return false
		}
	}
	return true
}

// Usage counts the tokens of one model call.
type Usage struct {
	PromptTokens     int `json:"promptTokens"`
	CompletionTokens int `json:"completionTokens"`
	CachedTokens     int `json:"cachedTokens,omitempty"`
}

// Tick is the record of one model call and the action it produced: the
// store keeps it, the inspector shows it, and a recorded session's tick
// line carries it (without the id, the channel and the sections, which the
// session's header and its replay supply).
type Tick struct {
	ID        int64     `json:"id,omitempty"`
	ChannelID string    `json:"channelId,omitempty"`
	Wake      int64     `json:"wake"`
	Trigger   string    `json:"trigger"`
	Now       time.Time `json:"now"`
	// Request is the full request as sent: system, history, state message.
	Request   []ChatMessage `json:"request"`
	Raw       string        `json:"raw"`
	Reasoning string        `json:"reasoning,omitempty"`
	Usage     Usage         `json:"usage"`
	LatencyMS int64         `json:"latencyMs"`
	// Action is the normalized flat action; ParseError is set instead when
	// the answer did not give one. ModelError is set when the call failed.
	Action     json.RawMessage `json:"action,omitempty"`
	ParseError string          `json:"parseError,omitempty"`
	ModelError string          `json:"modelError,omitempty"`
	Notes      []string        `json:"notes,omitempty"`
	Result     string          `json:"result"`
	OK         bool            `json:"ok"`
	// Effects are what the action did outside the model's view, a JSON
	// array of actions.Effect (the messages sent).
	Effects json.RawMessage `json:"effects,omitempty"`
	// Sections say where each prompt section sits in Request, for the
	// tick inspector.
	Sections []Section `json:"sections,omitempty"`
}

// Section locates one rendered prompt section in a request: the prompt
// builder describes its sections with it, and a tick record keeps them for
// the tick inspector.
type Section struct {
	Name  string `json:"name"`
	Order int    `json:"order"`
	// Source is the template's path ("embedded:persona.md" or a file on
	// disk) or "computed" for sections made by Go code.
	Source string `json:"source"`
	// Cache is "static" (rendered once per channel until files or facts
	// change) or "volatile" (every tick).
	Cache string `json:"cache"`
	// Reason is the template's note on why the section is there.
	Reason string `json:"reason,omitempty"`
	// Message is the index in the request; Start and End the byte range in
	// that message's content.
	Message int `json:"message"`
	Start   int `json:"start"`
	End     int `json:"end"`
}

// Text returns the section's text within the request's messages.
func (s Section) Text(messages []ChatMessage) string {
	if s.Message < 0 || s.Message >= len(messages) {
		return ""
	}
	c := messages[s.Message].Content
	if s.Start < 0 || s.End > len(c) || s.Start > s.End {
		return ""
	}
	return c[s.Start:s.End]
}

// TickFilter selects tick records and events.
type TickFilter struct {
	ChannelID string    // empty: every channel
	Since     time.Time // zero: from the start
	// ID, when set, selects that one tick (ticks only).
	ID int64
	// Last, when positive, keeps only the newest Last matches, still
	// returned in id order (ticks only).
	Last int
}
