package scheduler

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/state"
)

// Limits of what the state message says of edits and deletions.
const (
	// maxChangeRunes cuts the old and the new text of an edit.
	maxChangeRunes = 120
	// maxChanges bounds the edits and deletions waiting to be shown;
	// older ones give way.
	maxChanges = 8
	// maxDeleted bounds the deleted message ids a loop remembers for
	// holding back a send that answers them.
	maxDeleted = 64
)

// changes are the edits and deletions a loop has to tell the model of.
// The loop's mu guards them.
type changes struct {
	// notes are lines for the state message, oldest first.
	notes []string
	// deleted are the ids of the channel's messages deleted lately.
	deleted []int64
}

// deliverChange applies an edit or a deletion the platform reported for
// the stored message with msg's PlatformID. A change of a message never
// stored (sent before the bot joined, or refused) changes nothing.
func (s *Scheduler) deliverChange(ctx context.Context, ch state.Channel, msg state.Message) error {
	if msg.PlatformID == "" {
		return errors.New("deliver: an edit or deletion needs the platform id of its message")
	}
	if msg.Deleted {
		return s.deliverDelete(ctx, ch, msg)
	}
	return s.deliverEdit(ctx, ch, msg)
}

func (s *Scheduler) deliverEdit(ctx context.Context, ch state.Channel, msg state.Message) error {
	before, after, changed, err := s.deps.Store.EditMessage(ctx, state.Edit{
		ChannelID: ch.ID, PlatformID: msg.PlatformID, Content: msg.Content,
		Mentioned: msg.Mentioned, ReplyToSelf: msg.ReplyToSelf, Time: s.cfg.Now(),
	})
	if errors.Is(err, state.ErrNotFound) {
		s.log.Debug("edit of a message not stored", zap.String("channel", ch.ID), zap.String("message", msg.PlatformID))
		return nil
	}
	if err != nil {
		return fmt.Errorf("deliver edit: %w", err)
	}
	if !changed {
		return nil
	}
	s.log.Info("message edited", zap.String("channel", ch.ID), zap.String("message", msg.PlatformID), zap.Bool("shown", before.Read))
	if after.Self || !s.allowed(ch.ID) {
		return nil
	}
	l := s.loopFor(ch.ID)
	if before.Read {
		// An unread message simply shows its newest text; one the model
		// saw is in the history with its newest text, and the state
		// message says once what changed.
		l.noteChange(fmt.Sprintf("%s edited message %s: %s → %s", senderLabel(after), after.PlatformID,
			prompts.Quote(prompts.Cut(before.Content, maxChangeRunes)), prompts.Quote(prompts.Cut(after.Content, maxChangeRunes))))
	}
	if addressed(after) && !addressed(before) {
		l.mu.Lock()
		l.att.want = max(l.att.want, after.ID)
		l.mu.Unlock()
		l.signal(TriggerEdited)
		s.decided(ctx, after, string(TriggerEdited))
	}
	return nil
}

func (s *Scheduler) deliverDelete(ctx context.Context, ch state.Channel, msg state.Message) error {
	before, changed, err := s.deps.Store.DeleteMessage(ctx, ch.ID, msg.PlatformID, s.cfg.Now())
	if errors.Is(err, state.ErrNotFound) {
		s.log.Debug("deletion of a message not stored", zap.String("channel", ch.ID), zap.String("message", msg.PlatformID))
		return nil
	}
	if err != nil {
		return fmt.Errorf("deliver deletion: %w", err)
	}
	if !changed {
		return nil
	}
	s.log.Info("message deleted", zap.String("channel", ch.ID), zap.String("message", msg.PlatformID), zap.Bool("shown", before.Read))
	if before.Self {
		return nil
	}
	l := s.loopFor(ch.ID)
	l.mu.Lock()
	l.changed.deleted = append(l.changed.deleted, before.ID)
	if len(l.changed.deleted) > maxDeleted {
		l.changed.deleted = l.changed.deleted[len(l.changed.deleted)-maxDeleted:]
	}
	l.mu.Unlock()
	if before.Read {
		l.noteChange(fmt.Sprintf("%s deleted message %s; it is gone from the chat.", senderLabel(before), before.PlatformID))
	}
	return nil
}

// addressed reports whether a message speaks to the bot by itself.
func addressed(m state.Message) bool { return m.Mentioned || m.ReplyToSelf }

// senderLabel names a message's sender in a change line.
func senderLabel(m state.Message) string {
	name := strings.Join(strings.Fields(m.SenderName), " ")
	if name == "" {
		return "someone"
	}
	return prompts.Clip(name, prompts.MaxNameRunes)
}

// noteChange keeps a line for the next state message.
func (l *loop) noteChange(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.changed.notes = append(l.changed.notes, line)
	if len(l.changed.notes) > maxChanges {
		l.changed.notes = l.changed.notes[len(l.changed.notes)-maxChanges:]
	}
}

// changeNotes returns the lines waiting for the state message.
func (l *loop) changeNotes() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.changed.notes...)
}

// changesShown drops the lines a request showed once the model answered it.
func (l *loop) changesShown(lines []string) {
	if len(lines) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	shown := make(map[string]int, len(lines))
	for _, s := range lines {
		shown[s]++
	}
	kept := l.changed.notes[:0]
	for _, s := range l.changed.notes {
		if shown[s] > 0 {
			shown[s]--
			continue
		}
		kept = append(kept, s)
	}
	l.changed.notes = kept
}

// allDeleted reports whether every one of the messages was deleted
// since it arrived (false for none).
func (l *loop) allDeleted(msgs []state.Message) bool {
	if len(msgs) == 0 {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range msgs {
		found := false
		for _, id := range l.changed.deleted {
			if id == m.ID {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// withChanges adds the change lines to a state message notice.
func withChanges(notice string, lines []string) string {
	if len(lines) == 0 {
		return notice
	}
	all := strings.Join(lines, "\n")
	if notice == "" {
		return all
	}
	return notice + "\n" + all
}

// holdDeleted holds back a send to the tick's channel when every message
// the request showed as new was deleted while the model decided: the
// answer would be to something that no longer exists (delete to cancel).
// The model is told why and decides again.
func (t *tick) holdDeleted(act actions.Action, shown []state.Message) (actions.Result, bool) {
	send, ok := act.Params.(*actions.SendMessage)
	if !ok || act.Name != actions.NameSendMessage || (send.ChannelID != "" && send.ChannelID != t.l.id) || !t.l.allDeleted(shown) {
		return actions.Result{}, false
	}
	ids := make([]string, len(shown))
	for i, m := range shown {
		ids[i] = m.PlatformID
	}
	t.l.s.log.Info("send held back: the messages it answers were deleted", zap.String("channel", t.l.id), zap.Strings("messages", ids))
	return actions.Result{Next: true, Text: "not sent: the messages you were answering (" + strings.Join(ids, ", ") +
		") were deleted by their senders while you decided. Send something only if it still makes sense without them; otherwise continue."}, true
}
