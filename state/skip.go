package state

import (
	"errors"
	"time"
)

// SkippedWake is a wake that was due but made no model call: a budget
// used up when the wake came, or when the wake's next call was due. The
// messages that asked for it stay unread and wake the channel once the
// reason is gone.
type SkippedWake struct {
	ID        int64  `json:"id,omitempty"`
	ChannelID string `json:"channelId"`
	// Trigger is the wake's reason, as a tick would have recorded it.
	Trigger string `json:"trigger"`
	// Reason is why it made no call ("budget").
	Reason string    `json:"reason"`
	Time   time.Time `json:"time"`
}

// Validate reports what is wrong with a skipped wake record.
func (w SkippedWake) Validate() error {
	var errs []error
	if w.ChannelID == "" {
		errs = append(errs, errors.New("skipped wake: empty channel id"))
	}
	if w.Reason == "" {
		errs = append(errs, errors.New("skipped wake: empty reason"))
	}
	return errors.Join(errs...)
}
