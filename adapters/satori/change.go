package satori

import (
	"errors"
	"time"

	"github.com/airi-go/airi/state"
)

// errNoMessageID marks a message-updated or message-deleted event that
// does not say which message it changes.
var errNoMessageID = errors.New("message change without a message id")

// convertChange turns a message-updated or message-deleted event into
// the edit or deletion of the stored message with the event's id: the
// message as it is now, marked Edited, or marked Deleted.
func (a *Adapter) convertChange(ev *wireEvent, now time.Time) (state.Channel, state.Message, error) {
	if ev.Message == nil || ev.Message.id() == "" {
		return state.Channel{}, state.Message{}, errNoMessageID
	}
	ch, msg, err := a.convert(ev, now)
	if err != nil {
		return ch, msg, err
	}
	if ev.Type == "message-deleted" {
		msg.Deleted, msg.Content = true, ""
	} else {
		msg.Edited = true
	}
	return ch, msg, nil
}
