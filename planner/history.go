package planner

import (
	"strings"
	"unicode/utf8"

	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/state"
)

// window returns the part of the newest messages the request shows.
//
// The window is trimmed in blocks: once the channel holds more than the
// limit, the oldest half is dropped at once and the start then stays put
// until another half has arrived. A window that slid by one message every
// tick would change the request right after the system message and defeat
// the provider's prefix cache. total is the channel's message count as the
// store reports it; the start is computed from it, not from the slice.
func (b *Builder) window(msgs []state.Message, total int) []state.Message {
	limit := b.opts.HistoryLimit
	if total < len(msgs) {
		total = len(msgs)
	}
	if total <= limit {
		return msgs
	}
	half := limit / 2
	if half < 1 {
		half = 1
	}
	// Index (in the channel's whole history) of the first message shown:
	// the smallest multiple of half that leaves at most limit messages.
	over := total - limit
	start := (over + half - 1) / half * half
	first := total - len(msgs) // index of msgs[0]
	skip := start - first
	if skip <= 0 {
		return msgs
	}
	if skip >= len(msgs) {
		return nil
	}
	return msgs[skip:]
}

// historyTurn writes one stored message as a request turn. The bot's own
// messages become assistant turns holding the flat JSON action that sent
// them, so the model keeps seeing itself answer in JSON; the channelId is
// left out, as the model may leave it out, when it is the request's own.
// Other people's are user turns `Name: "text"` (`Name (a bot): "text"`
// for another bot), the text quoted so that its line breaks, brackets or
// JSON cannot pass for the runtime's words. Text longer than
// prompts.MaxHistoryRunes is cut with a marker. A message edited after it
// arrived shows its newest text, marked "(edited)".
func historyTurn(m state.Message, channelID string) state.ChatMessage {
	m.Content = prompts.Cut(m.Content, prompts.MaxHistoryRunes)
	if m.Self {
		b := make([]byte, 0, len(m.Content)+len(m.ChannelID)+len(m.ReplyTo)+64)
		b = append(b, `{"action":"send_message",`...)
		if ch := m.ChannelID; ch != "" && ch != channelID {
			b = append(b, `"channelId":`...)
			b = prompts.AppendQuote(b, ch)
			b = append(b, ',')
		}
		b = append(b, `"content":`...)
		b = prompts.AppendQuote(b, m.Content)
		if m.ReplyTo != "" {
			b = append(b, `,"replyTo":`...)
			b = prompts.AppendQuote(b, m.ReplyTo)
		}
		b = append(b, '}')
		return state.ChatMessage{Role: RoleAssistant, Content: string(b)}
	}
	name := senderName(m.SenderName)
	b := make([]byte, 0, len(name)+len(m.Content)+16)
	b = append(b, name...)
	if m.FromBot {
		// Another bot: the model tells it from people, as the state
		// message does.
		b = append(b, " (a bot)"...)
	}
	b = append(b, ':', ' ')
	b = prompts.AppendQuote(b, m.Content)
	if m.Edited {
		// The newest text stands; the state message said once what it was.
		b = append(b, " (edited)"...)
	}
	return state.ChatMessage{Role: RoleUser, Content: string(b)}
}

// senderName returns a display name safe to put before a colon: plain
// names stay as they are; a name with brackets, quotes, colons or control
// characters is quoted, so "[System]" cannot look like a runtime tag. It
// is cut to prompts.MaxNameRunes.
func senderName(name string) string {
	if !tidy(name) {
		name = strings.Join(strings.Fields(name), " ")
	}
	name = prompts.Clip(name, prompts.MaxNameRunes)
	if name == "" {
		return "someone"
	}
	return prompts.Plain(name)
}

// tidy reports whether s has no white space but single inner spaces, the
// usual case, so that folding it would change nothing.
func tidy(s string) bool {
	prevSpace := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return false // non-ASCII may hide other spaces; fold to be sure
		}
		if c == ' ' {
			if prevSpace {
				return false
			}
			prevSpace = true
			continue
		}
		if c < 0x20 || c == 0x7f {
			return false
		}
		prevSpace = false
	}
	return !prevSpace || s == ""
}
