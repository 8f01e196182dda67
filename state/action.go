package state

import (
	"encoding/json"
	"time"
)

// ActionRecord is one entry of a channel's action history: what the model
// did (or tried to) and what came of it.
type ActionRecord struct {
	ID        int64  `json:"id,omitempty"`
	ChannelID string `json:"channelId"`
	// Wake numbers the wake the action belongs to, so the state message can
	// show the current wake in full and earlier ones compactly.
	Wake int64 `json:"wake"`
	// Action is the flat JSON action, or empty when the answer did not parse.
	Action    json.RawMessage `json:"action,omitempty"`
	Name      string          `json:"name"`
	Reasoning string          `json:"reasoning,omitempty"`
	OK        bool            `json:"ok"`
	Result    string          `json:"result"`
	Time      time.Time       `json:"time"`
}
