package state

import (
	"errors"
	"time"
)

// OutboxState is where a send stands.
type OutboxState string

// Outbox states. A pending entry found at start belongs to a send whose
// outcome is unknown: it is never repeated, only reported.
const (
	OutboxPending OutboxState = "pending"
	OutboxDone    OutboxState = "done"
	OutboxFailed  OutboxState = "failed"
	OutboxUnknown OutboxState = "unknown"
)

// OutboxEntry is one send, recorded before the platform call.
type OutboxEntry struct {
	ID        int64  `json:"id,omitempty"`
	ChannelID string `json:"channelId"`
	Content   string `json:"content"`
	ReplyTo   string `json:"replyTo,omitempty"`
	// Kind is "" for a message and OutboxReaction for a reaction.
	Kind       string      `json:"kind,omitempty"`
	State      OutboxState `json:"state"`
	PlatformID string      `json:"platformId,omitempty"`
	Error      string      `json:"error,omitempty"`
	Created    time.Time   `json:"created"`
	Updated    time.Time   `json:"updated"`
}

// Outgoing is a message the runtime asks an adapter to send. ChannelID is
// the platform's own id (not qualified with the platform name).
type Outgoing struct {
	ChannelID string
	Content   string
	ReplyTo   string
}

// ErrOutcomeUnknown is wrapped by an adapter's send error when the platform
// may or may not have delivered the message (a timeout after the request
// went out). Such a send is never repeated.
var ErrOutcomeUnknown = errors.New("send outcome unknown")
