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

// ActionHead is an action record's id and name: what TrimStart reads.
type ActionHead struct {
	ID   int64
	Name string
}

// TrimStart returns the first id to keep when a channel's action history
// is cut to kept, its newest records, oldest first. A continue at the
// start of the kept part (the end of a wake whose start is cut off) goes
// too, repeatedly, so that the kept history starts at the beginning of a
// wake rather than with half a chain; the channel then keeps fewer records.
// Every record before the id returned is deleted.
func TrimStart(kept []ActionHead) int64 {
	var cut int64
	for _, a := range kept {
		if a.Name != "continue" {
			return a.ID
		}
		cut = a.ID + 1
	}
	return cut
}
