package state

import (
	"errors"
	"strings"
)

// Channel is one conversation: a group or a direct chat on one platform.
type Channel struct {
	// ID is the id the model sees: the platform's own, or "platform:id"
	// when several adapters run.
	ID string `json:"id"`
	// Platform is the adapter that reaches the channel: telegram, satori, console.
	Platform string `json:"platform"`
	// NativeID is the platform's own id, used when sending.
	NativeID string `json:"nativeId,omitempty"`
	Group    bool   `json:"group"`
	Title    string `json:"title,omitempty"`
	// Members are display names of people seen in the channel.
	Members []string `json:"members,omitempty"`
}

// Validate reports what is missing.
func (c Channel) Validate() error {
	var errs []error
	if strings.TrimSpace(c.ID) == "" {
		errs = append(errs, errors.New("channel: empty id"))
	}
	if strings.TrimSpace(c.Platform) == "" {
		errs = append(errs, errors.New("channel: empty platform"))
	}
	return errors.Join(errs...)
}
