package actions

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/airi-go/airi/state"
)

const (
	// repeatWindow and repeatLookback define a repeat: a send identical to
	// one of the bot's last repeatLookback messages in the channel, sent
	// within repeatWindow.
	repeatWindow   = 10 * time.Minute
	repeatLookback = 5
	// repeatScan bounds how far back in a channel's history the bot's own
	// messages are looked for.
	repeatScan = 100
	// storedCutMarker ends a sent message that was cut to fit the history.
	storedCutMarker = " […message cut]"
)

// send delivers a message: it strips the silent token, refuses what is
// blank, too long, split into too many parts or a repeat, holds the send
// back when new messages arrived, then records it in the outbox, sends it
// and stores it in the history. A message that went out is always
// reported as sent, even when recording it failed.
func (h *builtins) send(ctx context.Context, call Call) (Result, error) {
	p, ok := call.Action.Params.(*SendMessage)
	if !ok {
		return Result{}, fmt.Errorf("send_message got parameters of type %T", call.Action.Params)
	}
	ch, refusal, err := h.channel(ctx, p.ChannelID)
	if err != nil || refusal != nil {
		return deref(refusal), err
	}
	content := strings.TrimSpace(stripSilence(p.Content))
	if blank(content) {
		// Silence ends the turn unless the model asked for more.
		more := p.Then == ThenNext
		return Result{OK: true, Next: more, EndsTurn: !more, Answered: ch.ID == call.Channel, Text: "nothing sent: you chose to stay silent"}, nil
	}
	out := state.Outgoing{ChannelID: ch.ID, Content: content, ReplyTo: p.ReplyTo}
	if r := h.checkSize(out, ch.Platform); r != nil {
		return *r, nil
	}
	if r, err := h.checkRepeat(ctx, ch.ID, content); err != nil || r != nil {
		return deref(r), err
	}
	if call.MayAbort {
		fresh, err := h.deps.Store.CountUnreadAfter(ctx, ch.ID, call.Watermark)
		if err != nil {
			return Result{}, fmt.Errorf("check unread of %q: %w", ch.ID, err)
		}
		if fresh > 0 {
			return Result{Next: true, Aborted: true, Text: fmt.Sprintf(
				"not sent: %d new message(s) arrived in %q while you were deciding. Look at them first, then send your reply again if it still fits.", fresh, ch.ID)}, nil
		}
	}
	now := h.deps.Now()
	id, err := h.deps.Store.AddOutbox(ctx, state.OutboxEntry{ChannelID: ch.ID, Content: content, ReplyTo: p.ReplyTo, State: state.OutboxPending, Created: now, Updated: now})
	if err != nil {
		return Result{}, fmt.Errorf("record send in outbox: %w", err)
	}
	platformID, sendErr := h.deps.Sender.Send(ctx, out)
	// Recording the outcome must survive a cancelled tick.
	bg := context.WithoutCancel(ctx)
	if sendErr != nil && platformID == "" {
		st := state.OutboxFailed
		text := fmt.Sprintf("send to %q failed: %v", ch.ID, sendErr)
		if errors.Is(sendErr, state.ErrOutcomeUnknown) {
			st = state.OutboxUnknown
			text = fmt.Sprintf("the send to %q may or may not have gone out (%v); it will not be repeated automatically", ch.ID, sendErr)
		}
		if err := h.deps.Store.SetOutboxState(bg, id, st, "", sendErr.Error()); err != nil {
			return Result{}, fmt.Errorf("record failed send: %w", err)
		}
		return Result{Next: true, Text: text}, nil
	}
	// From here on the message (or its first part) is in the chat: it is
	// reported as sent whatever happens to its records.
	log := h.deps.Logger.With(zap.String("channel", ch.ID), zap.String("message", platformID))
	errText := ""
	if sendErr != nil {
		errText = sendErr.Error()
	}
	sent := state.Message{
		ChannelID: ch.ID, PlatformID: platformID, SenderName: h.deps.botName(), Self: true,
		Content: storedContent(content), ReplyTo: p.ReplyTo, Time: now, Read: true,
	}
	if err := h.deps.Store.RecordSent(bg, id, platformID, errText, sent); err != nil {
		log.Warn("record the sent message in one transaction; recording its parts one by one", zap.Error(err))
		if err := h.deps.Store.SetOutboxState(bg, id, state.OutboxDone, platformID, errText); err != nil {
			log.Error("message sent, but its outbox entry could not be marked done", zap.Error(err))
		}
		if _, _, err := h.deps.Store.Ingest(bg, sent); err != nil {
			log.Error("message sent, but it could not be stored in the history", zap.Error(err))
		}
	}
	text := fmt.Sprintf("sent to %q", ch.ID)
	if sendErr != nil {
		text = fmt.Sprintf("sent to %q, but only in part: %v; the rest will not be repeated automatically", ch.ID, sendErr)
	}
	return Result{
		OK: true, Next: true, Answered: ch.ID == call.Channel, EndsTurn: p.Then != ThenNext,
		Text:    text,
		Effects: []Effect{{Kind: "send", ChannelID: ch.ID, Content: content, ReplyTo: p.ReplyTo, MessageID: platformID}},
	}, nil
}

// checkSize refuses a message longer than the character limit, or one the
// sender would split into more platform messages than allowed, or that it
// would find empty.
func (h *builtins) checkSize(out state.Outgoing, platform string) *Result {
	if n := utf8.RuneCountInString(out.Content); n > h.deps.MaxSendChars {
		return &Result{Next: true, Text: fmt.Sprintf(
			"not sent: the message is %d characters long and one send may hold at most %d; nothing went out. Shorten it to at most %d characters and send it again.",
			n, h.deps.MaxSendChars, h.deps.MaxSendChars)}
	}
	pc, ok := h.deps.Sender.(PartCounter)
	if !ok {
		return nil
	}
	parts := pc.Parts(out)
	if parts == 0 {
		return &Result{Next: true, Text: "not sent: the message has no visible text once formatted (only markup or white space)"}
	}
	if parts > h.deps.MaxSendParts {
		if platform == "" {
			platform = "the platform"
		}
		return &Result{Next: true, Text: fmt.Sprintf(
			"not sent: the message (%d characters) would go out as %d separate messages on %s and one send may take at most %d; nothing went out. Shorten it and send it again.",
			utf8.RuneCountInString(out.Content), parts, platform, h.deps.MaxSendParts)}
	}
	return nil
}

// checkRepeat refuses a message identical to one of the bot's last few
// messages in the channel sent within the repeat window, so a model that
// repeats itself delivers its message once.
func (h *builtins) checkRepeat(ctx context.Context, channelID, content string) (*Result, error) {
	own, err := h.deps.Store.RecentOwn(ctx, channelID, repeatScan, repeatLookback)
	if err != nil {
		return nil, fmt.Errorf("look for repeats in %q: %w", channelID, err)
	}
	now := h.deps.Now()
	want := sameText(storedContent(content))
	for _, m := range own {
		age := now.Sub(m.Time)
		if age > repeatWindow {
			break
		}
		if sameText(m.Content) == want {
			return &Result{Next: true, Text: fmt.Sprintf(
				"not sent: you sent this same message to %q %s ago and it is in the chat already; send something new, or nothing.",
				channelID, max(age, 0).Round(time.Second))}, nil
		}
	}
	return nil, nil
}

// sameText reduces a message to what makes two sends the same: its words,
// whatever the white space between them.
func sameText(s string) string { return strings.Join(strings.Fields(s), " ") }

// stripSilence removes the silent token until none is left, also where
// removing one forms another (@@SIL@@SILENT@@ENT@@), in one pass: each
// byte is appended to the result, and a token completed at its end is
// dropped at once.
func stripSilence(s string) string {
	if !strings.Contains(s, SilentToken) {
		return s
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		out = append(out, s[i])
		if len(out) >= len(SilentToken) && string(out[len(out)-len(SilentToken):]) == SilentToken {
			out = out[:len(out)-len(SilentToken)]
		}
	}
	return string(out)
}

// blank reports a message with nothing to show: only white space and
// invisible format characters (zero-width spaces, direction marks).
func blank(s string) bool {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r)
	}) == ""
}

// storedContent cuts a sent message to what the history holds, with a
// marker.
func storedContent(s string) string {
	if len(s) <= state.MaxContentBytes {
		return s
	}
	cut := state.MaxContentBytes - len(storedCutMarker)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + storedCutMarker
}
