package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mymmrac/telego"
	ta "github.com/mymmrac/telego/telegoapi"
	"go.uber.org/zap"

	"github.com/airi-go/airi/state"
)

// maxFloodRetries bounds how many 429 answers one part of a send accepts.
const maxFloodRetries = 5

// Send sends the model's markdown to a chat as Telegram HTML, split into
// several messages when longer than Telegram allows, replying to
// out.ReplyTo when set. It returns the message id of the first part.
//
// A 429 is waited out (retry_after) and retried: Telegram did not send the
// message. When Telegram may have delivered a part (the connection broke
// after the request went out, a 5xx, the context ended mid-request), the
// error wraps state.ErrOutcomeUnknown and nothing is retried. If the
// entities are refused, the part is sent again as plain text.
func (a *Adapter) Send(ctx context.Context, out state.Outgoing) (string, error) {
	chat, thread, err := splitChannel(out.ChannelID)
	if err != nil {
		return "", err
	}
	nonEmpty := splitMessage(out.Content)
	if len(nonEmpty) == 0 {
		return "", errors.New("telegram send: the message is empty")
	}
	var reply *telego.ReplyParameters
	if out.ReplyTo != "" {
		id, err := strconv.Atoi(out.ReplyTo)
		if err != nil {
			return "", fmt.Errorf("telegram send: replyTo %q is not a Telegram message id (a number)", out.ReplyTo)
		}
		reply = &telego.ReplyParameters{MessageID: id, AllowSendingWithoutReply: true}
		if err := a.checkReply(chat.ID, thread, id); err != nil {
			return "", err
		}
	}
	// In a forum, every part goes to the channel's topic, a reply too:
	// the topic is the channel, so an answer never lands in another one.
	var first string
	for i, p := range nonEmpty {
		params := &telego.SendMessageParams{ChatID: chat, Text: p.HTML(), ParseMode: telego.ModeHTML, MessageThreadID: thread}
		if i == 0 {
			params.ReplyParameters = reply
		}
		msg, err := a.sendPart(ctx, params, p)
		if err != nil {
			if i > 0 {
				// Earlier parts are out: repeating the send would
				// duplicate them.
				return first, fmt.Errorf("telegram send: part %d of %d: %w (earlier parts were sent): %w",
					i+1, len(nonEmpty), state.ErrOutcomeUnknown, err)
			}
			return "", err
		}
		if i == 0 {
			first = strconv.Itoa(msg.MessageID)
		}
	}
	return first, nil
}

// Parts returns how many Telegram messages Send would send for out: its
// markdown, formatted, split at Telegram's length limit, without the parts
// that hold no visible text. Zero means Send would refuse it as empty.
func (a *Adapter) Parts(out state.Outgoing) int {
	return len(splitMessage(out.Content))
}

// splitMessage formats markdown and cuts it into the messages Send sends.
func splitMessage(content string) []formatted {
	var nonEmpty []formatted
	for _, p := range parseMarkdown(content).Split(MaxMessageUTF16) {
		if strings.TrimSpace(p.Plain()) != "" {
			nonEmpty = append(nonEmpty, p)
		}
	}
	return nonEmpty
}

// sendPart sends one part, honouring flood control and falling back to
// plain text when the HTML is refused.
func (a *Adapter) sendPart(ctx context.Context, params *telego.SendMessageParams, part formatted) (*telego.Message, error) {
	plain := false
	for attempt := 0; ; attempt++ {
		sctx, cancel := context.WithTimeout(ctx, a.cfg.HTTPTimeout)
		msg, err := a.bot.SendMessage(sctx, params)
		cancel()
		if err == nil {
			return msg, nil
		}
		var apiErr *ta.Error
		if errors.As(err, &apiErr) {
			switch {
			case apiErr.ErrorCode == http.StatusTooManyRequests:
				wait := time.Second
				if apiErr.Parameters != nil && apiErr.Parameters.RetryAfter > 0 {
					wait = time.Duration(apiErr.Parameters.RetryAfter) * time.Second
				}
				if attempt >= maxFloodRetries || wait > a.cfg.MaxRetryWait {
					return nil, fmt.Errorf("telegram send: rate limited by Telegram, retry after %s; not sent", wait)
				}
				a.log.Info("telegram flood control; waiting", zap.Int64("chat", params.ChatID.ID), zap.Duration("retry_after", wait))
				if err := a.wait(ctx, wait); err != nil {
					return nil, fmt.Errorf("telegram send: waiting out flood control: %w; not sent", err)
				}
				continue
			case apiErr.ErrorCode == http.StatusBadRequest && !plain && params.ParseMode != "" &&
				strings.Contains(strings.ToLower(apiErr.Description), "entit"):
				// "can't parse entities", or any other complaint about the
				// formatting: the words matter more than the markup.
				a.log.Warn("telegram refused the formatting; sending plain text", zap.String("reason", apiErr.Description))
				params.Text, params.ParseMode, plain = part.Plain(), "", true
				continue
			case apiErr.ErrorCode == http.StatusBadRequest && params.MessageThreadID != 0 &&
				strings.Contains(strings.ToLower(apiErr.Description), "thread not found"):
				// The topic was deleted since. Another topic (General
				// included) is another channel: the answer goes nowhere.
				return nil, fmt.Errorf("telegram send: forum topic %d no longer exists; not sent", params.MessageThreadID)
			case apiErr.ErrorCode >= 500:
				return nil, fmt.Errorf("telegram send: %w: %d %s", state.ErrOutcomeUnknown, apiErr.ErrorCode, apiErr.Description)
			default:
				return nil, fmt.Errorf("telegram send: %s", describeAPIError(apiErr))
			}
		}
		var te *transportError
		if errors.As(err, &te) && !te.Sent {
			return nil, fmt.Errorf("telegram send: not sent: %w", te)
		}
		// The request went out (or may have): Telegram may have the
		// message.
		return nil, fmt.Errorf("telegram send: %w: %w", state.ErrOutcomeUnknown, unwrapTelego(err))
	}
}

// Typing shows the typing indicator in a chat (Telegram shows it for about
// five seconds or until the bot's next message).
func (a *Adapter) Typing(ctx context.Context, channelID string) error {
	chat, thread, err := splitChannel(channelID)
	if err != nil {
		return err
	}
	tctx, cancel := context.WithTimeout(ctx, a.cfg.HTTPTimeout)
	defer cancel()
	if err := a.bot.SendChatAction(tctx, &telego.SendChatActionParams{ChatID: chat, MessageThreadID: thread, Action: telego.ChatActionTyping}); err != nil {
		var apiErr *ta.Error
		if errors.As(err, &apiErr) {
			return fmt.Errorf("telegram typing: %s", describeAPIError(apiErr))
		}
		return fmt.Errorf("telegram typing: %w", unwrapTelego(err))
	}
	return nil
}

// parseChatID reads a channel id: a numeric chat id, or @username for
// public groups and channels.
func parseChatID(id string) (telego.ChatID, error) {
	id = strings.TrimSpace(id)
	if strings.HasPrefix(id, "@") && len(id) > 1 {
		return telego.ChatID{Username: id}, nil
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return telego.ChatID{}, fmt.Errorf("telegram: channel id %q is not a Telegram chat id (a number such as -1001234567890)", id)
	}
	return telego.ChatID{ID: n}, nil
}

// describeAPIError words a Bot API refusal for the model and the logs.
func describeAPIError(e *ta.Error) string {
	s := fmt.Sprintf("Telegram refused it: %d %s", e.ErrorCode, e.Description)
	if e.Parameters != nil && e.Parameters.MigrateToChatID != 0 {
		s += fmt.Sprintf(" (the group is now the supergroup %d)", e.Parameters.MigrateToChatID)
	}
	return s
}

// unwrapTelego drops telego's "telego: method: internal execution:" prefix.
func unwrapTelego(err error) error {
	var te *transportError
	if errors.As(err, &te) {
		return te
	}
	return err
}
