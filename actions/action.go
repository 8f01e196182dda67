// Package actions defines what the model can do: one Go type per action,
// its JSON schema, a registry that maps names to handlers, and the
// dispatcher that runs one action and reports its result.
package actions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/airi-go/airi/state"
)

// Action is one normalized action chosen by the model: its name and its
// parameters as a pointer to the registered parameter type (for example
// *SendMessage). Reasoning is kept for the trace and never reaches handlers.
type Action struct {
	Name   string
	Params any
}

// MarshalJSON writes the flat form: the name under "action", the parameters
// beside it, absent optional parameters omitted.
func (a Action) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(`{"action":`)
	name, err := json.Marshal(a.Name)
	if err != nil {
		return nil, fmt.Errorf("encode action name: %w", err)
	}
	buf.Write(name)
	if a.Params != nil {
		params, err := json.Marshal(a.Params)
		if err != nil {
			return nil, fmt.Errorf("encode %s parameters: %w", a.Name, err)
		}
		params = bytes.TrimSpace(params)
		if len(params) > 2 && params[0] == '{' {
			buf.WriteByte(',')
			buf.Write(params[1 : len(params)-1])
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// Effect is something an action did outside the runtime, recorded with the
// tick: a message sent, a note written, a tool called.
type Effect struct {
	Kind      string `json:"kind"`
	ChannelID string `json:"channelId"`
	Content   string `json:"content,omitempty"`
	ReplyTo   string `json:"replyTo,omitempty"`
	MessageID string `json:"messageId,omitempty"`
	// Tool, Args, Outcome and Error describe a tool call (EffectTool):
	// the tool's full name, the arguments it was called with, how the
	// call ended (ok, error, timeout, refused, unavailable) and why it
	// failed; Content is the text the tool returned. A replay answers the
	// call from them, with no server.
	Tool    string          `json:"tool,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
	Outcome string          `json:"outcome,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// EffectTool is the kind of a tool call's effect.
const EffectTool = "tool"

// Result is what an action produced. Text is written for the model, which
// reads it on the next tick. Next asks the loop for another iteration.
type Result struct {
	OK      bool
	Next    bool
	Text    string
	Effects []Effect
	// Sleep, when positive, suspends the channel's loop for that long.
	Sleep time.Duration
	// Delivered counts messages of the calling channel that the action
	// showed the model (a read of that channel).
	Delivered int
	// Shown are the unread messages Text shows (a read). They stay unread
	// until a request showing this result has been answered; the scheduler
	// then marks them read, and does not offer them as new meanwhile.
	Shown []state.Message
	// Aborted reports a send held back because new messages arrived.
	Aborted bool
	// Answered reports that the action replied to the channel (a send went
	// out) or deliberately chose not to (continue); the scheduler uses it to
	// tell a wake that ended on its cap with delivered messages unanswered.
	Answered bool
	// EndsTurn reports a send that went out (or a deliberate silence)
	// without the model asking for more with "then": "next". Next stays
	// as it was for the earlier turn semantics; under the send-ends
	// semantics the scheduler ends the wake on it, unless messages arrived
	// for the channel while the model was deciding or messages the wake
	// delivered are still unanswered.
	EndsTurn bool
	// Notes are the memory notes the action wrote; the scheduler records
	// the tick that wrote them once the tick is stored.
	Notes []int64
}
