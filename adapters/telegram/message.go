package telegram

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mymmrac/telego"
	"go.uber.org/zap"

	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/state"
)

// maxMembers bounds the display names remembered per chat.
const maxMembers = 50

// cutMarker ends a message that was longer than state.MaxContentBytes.
const cutMarker = " […message cut]"

// handle turns one update into a delivery. Only a failed Deliver is an
// error: updates the runtime has no use for are logged and skipped.
func (a *Adapter) handle(ctx context.Context, inbox adapters.Inbox, u telego.Update) error {
	switch {
	case u.Message != nil:
		ch, msg, ok := a.convert(u.Message)
		if m := u.Message; m.MigrateToChatID != 0 {
			a.log.Info("group became a supergroup with a new chat id", zap.Int64("chat", m.Chat.ID),
				zap.Int64("new_chat", m.MigrateToChatID))
		}
		if !ok {
			a.log.Debug("skipping a message without content", zap.Int("update", u.UpdateID),
				zap.Int64("chat", u.Message.Chat.ID))
			return nil
		}
		if err := inbox.Deliver(ctx, ch, msg); err != nil {
			return fmt.Errorf("telegram deliver update %d: %w", u.UpdateID, err)
		}
		return nil
	case u.MessageReaction != nil:
		return a.handleReaction(ctx, inbox, u)
	case u.EditedMessage != nil:
		ch, msg, ok := a.convert(u.EditedMessage)
		if !ok {
			return nil
		}
		// The runtime replaces the stored text; an edit that changes
		// nothing it shows (a link preview, a reaction) changes nothing.
		msg.Edited = true
		if d := u.EditedMessage.EditDate; d != 0 {
			msg.Time = time.Unix(d, 0).UTC()
		}
		if err := inbox.Deliver(ctx, ch, msg); err != nil {
			return fmt.Errorf("telegram deliver edit of update %d: %w", u.UpdateID, err)
		}
		return nil
	default:
		a.log.Debug("skipping an update of another kind", zap.Int("update", u.UpdateID))
		return nil
	}
}

// convert maps a Telegram message to the runtime's channel and message.
// ok is false for messages with nothing to read (service messages).
func (a *Adapter) convert(m *telego.Message) (state.Channel, state.Message, bool) {
	botID, botName := a.Me()
	a.learnTopic(m)
	a.rememberTopic(m)
	attached := media(m, a.cfg.MediaMaxBytes)
	content := messageContent(m, len(attached) > 0)
	if content == "" && len(attached) == 0 {
		return state.Channel{}, state.Message{}, false
	}
	if len(content) > state.MaxContentBytes {
		content = cutContent(content, state.MaxContentBytes)
	}
	chatID := channelID(m)
	msg := state.Message{
		ChannelID:  chatID,
		PlatformID: strconv.Itoa(m.MessageID),
		Content:    content,
		Media:      attached,
		Time:       time.Unix(m.Date, 0).UTC(),
	}
	switch {
	case m.From != nil:
		msg.SenderID = senderID(m.From.ID)
		msg.SenderName = userName(m.From)
		msg.Self = m.From.ID == botID
		msg.FromBot = m.From.IsBot && !msg.Self
	case m.SenderChat != nil:
		// Anonymous group admins and channels posting into a group.
		msg.SenderID = senderID(m.SenderChat.ID)
		msg.SenderName = chatTitle(m.SenderChat)
	}
	if r := m.ReplyToMessage; r != nil && !topicRoot(m, r) {
		msg.ReplyTo = strconv.Itoa(r.MessageID)
		msg.ReplyToSelf = !msg.Self && r.From != nil && botID != 0 && r.From.ID == botID
	}
	msg.Mentioned = !msg.Self && addressed(m, botID, botName)

	group := m.Chat.Type != telego.ChatTypePrivate
	ch := state.Channel{
		ID:       chatID,
		Platform: Name,
		NativeID: chatID,
		Group:    group,
		Title:    a.channelTitle(m),
		Members:  a.seen(m.Chat.ID, msg.SenderName, msg.Self),
	}
	return ch, msg, true
}

// seen records a sender's display name for a chat and returns the names
// known so far.
func (a *Adapter) seen(chatID int64, name string, self bool) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	names := a.members[chatID]
	if name != "" && !self {
		for i, n := range names {
			if n == name {
				names = append(names[:i], names[i+1:]...)
				break
			}
		}
		names = append(names, name)
		if len(names) > maxMembers {
			names = names[len(names)-maxMembers:]
		}
		a.members[chatID] = names
	}
	return append([]string(nil), names...)
}

// userName is "First Last", or the username when both are empty.
func userName(u *telego.User) string {
	name := strings.TrimSpace(strings.TrimSpace(u.FirstName + " " + u.LastName))
	if name == "" {
		name = u.Username
	}
	return name
}

// chatTitle is the group's title, or the other person's name in a
// private chat.
func chatTitle(c *telego.Chat) string {
	if c.Title != "" {
		return c.Title
	}
	name := strings.TrimSpace(c.FirstName + " " + c.LastName)
	if name == "" && c.Username != "" {
		name = "@" + c.Username
	}
	return name
}

// messageContent is the text the model reads: the text or caption after a
// placeholder for what is not a file (a location, a poll), and who wrote
// it first when forwarded. Files are not written here: they are the
// message's Media, and hasMedia says there are some.
func messageContent(m *telego.Message, hasMedia bool) string {
	text := m.Text
	if text == "" {
		text = m.Caption
	}
	var parts []string
	if m.ForwardOrigin != nil && (text != "" || hasMedia || placeholder(m) != "") {
		parts = append(parts, bracket("forwarded from", forwardedFrom(m.ForwardOrigin)))
	}
	if ph := placeholder(m); ph != "" {
		parts = append(parts, ph)
	}
	if text != "" {
		parts = append(parts, text)
	}
	return strings.Join(parts, " ")
}

// forwardedFrom names the original author of a forwarded message.
func forwardedFrom(o telego.MessageOrigin) string {
	switch o := o.(type) {
	case *telego.MessageOriginUser:
		return userName(&o.SenderUser)
	case *telego.MessageOriginHiddenUser:
		return o.SenderUserName
	case *telego.MessageOriginChat:
		return chatTitle(&o.SenderChat)
	case *telego.MessageOriginChannel:
		return chatTitle(&o.Chat)
	}
	return ""
}

// placeholder describes in brackets what a message carries that is not
// a file (files are its Media), or "".
func placeholder(m *telego.Message) string {
	switch {
	case m.Location != nil:
		return "[location]"
	case m.Venue != nil:
		return bracket("venue", m.Venue.Title)
	case m.Contact != nil:
		return bracket("contact", strings.TrimSpace(m.Contact.FirstName+" "+m.Contact.LastName))
	case m.Poll != nil:
		return bracket("poll", m.Poll.Question)
	case m.Dice != nil:
		return fmt.Sprintf("[dice %s %d]", m.Dice.Emoji, m.Dice.Value)
	}
	return ""
}

// bracket writes "[kind detail]", or "[kind]" without detail; a bare
// "[forwarded from]" reads "[forwarded]".
func bracket(kind, detail string) string {
	if kind == "forwarded from" && strings.TrimSpace(detail) == "" {
		kind = "forwarded"
	}
	detail = strings.TrimSpace(detail)
	if detail == "" {
		return "[" + kind + "]"
	}
	return "[" + kind + " " + detail + "]"
}

// cutContent shortens s to at most limit bytes, on a character boundary,
// ending with the cut marker.
func cutContent(s string, limit int) string {
	n := limit - len(cutMarker)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + cutMarker
}

// addressed reports whether the message speaks to the bot: its @username
// or a text mention of it, a reply to one of its messages, or a command
// (a bare one, or one with the bot's username).
func addressed(m *telego.Message, botID int64, username string) bool {
	if r := m.ReplyToMessage; r != nil && r.From != nil && r.From.ID == botID && botID != 0 {
		return true
	}
	text, entities := m.Text, m.Entities
	if text == "" {
		text, entities = m.Caption, m.CaptionEntities
	}
	at := "@" + strings.ToLower(username)
	for _, e := range entities {
		switch e.Type {
		case "mention":
			if username != "" && strings.ToLower(entityText(text, e)) == at {
				return true
			}
		case "text_mention":
			if e.User != nil && e.User.ID == botID {
				return true
			}
		case "bot_command":
			cmd := entityText(text, e)
			if _, target, ok := strings.Cut(cmd, "@"); !ok || strings.EqualFold(target, username) {
				return true
			}
		}
	}
	// Entities may be missing (a forwarded text, a server that omits
	// them); a literal @username still counts.
	return username != "" && containsMention(strings.ToLower(text), at)
}

// containsMention finds at in text as a whole word.
func containsMention(text, at string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], at)
		if j < 0 {
			return false
		}
		end := i + j + len(at)
		r, _ := utf8.DecodeRuneInString(text[end:])
		if end == len(text) || !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') {
			return true
		}
		i = end
	}
}

// entityText returns the text an entity covers; offsets count UTF-16 units.
func entityText(text string, e telego.MessageEntity) string {
	units := utf16.Encode([]rune(text))
	if e.Offset < 0 || e.Length < 0 || e.Offset+e.Length > len(units) {
		return ""
	}
	return string(utf16.Decode(units[e.Offset : e.Offset+e.Length]))
}

// senderID is a Telegram user's (or chat's) id as the runtime keeps it:
// qualified with the platform, so that a user of another platform with
// the same number is another person ("telegram:501").
func senderID(id int64) string { return Name + ":" + strconv.FormatInt(id, 10) }
