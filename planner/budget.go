package planner

import (
	"github.com/airi-go/airi/planner/tokens"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/state"
)

// incomingFraming is what one new message's line costs besides its name
// and text: "- id 123 12:34 (mentions you) (reply to 456): " and quotes.
const incomingFraming = 16

// fitIncoming keeps the new messages that fit budget tokens, oldest first
// and at least one, each cut to prompts.MaxMessageRunes (the first one
// further when it alone is over the budget). Unread messages left out are
// added to the remaining and unread counts. It returns the input to render
// and the ids it shows.
func (b *Builder) fitIncoming(in Input, budget int) (Input, []int64) {
	if len(in.Incoming) == 0 {
		return in, nil
	}
	kept := make([]state.Message, 0, len(in.Incoming))
	ids := make([]int64, 0, len(in.Incoming))
	used, left := 0, 0
	for i, m := range in.Incoming {
		name := b.tok.Count(senderName(m.SenderName))
		text := prompts.Cut(m.Content, prompts.MaxMessageRunes)
		cost := name + incomingFraming + b.tok.Count(text)
		if i > 0 && used+cost > budget {
			for _, r := range in.Incoming[i:] {
				if !r.Read {
					left++
				}
			}
			break
		}
		if cost > budget {
			text = b.tok.Fit(m.Content, max(budget-name-incomingFraming, 1), func(s string, n int) string {
				return prompts.Cut(s, min(n, prompts.MaxMessageRunes))
			})
			cost = name + incomingFraming + b.tok.Count(text)
		}
		used += cost
		m.Content = text
		kept = append(kept, m)
		ids = append(ids, m.ID)
	}
	in.Incoming = kept
	if left > 0 {
		in.Remaining += left
		unread := make(map[string]int, len(in.Unread)+1)
		for id, n := range in.Unread {
			unread[id] = n
		}
		unread[in.Channel.ID] += left
		in.Unread = unread
	}
	return in, ids
}

// turnTokens remembers the token count of a channel's history turns by
// message id, so that a window that stays put is not counted again.
type turnTokens map[int64]turnCount

// turnCount is one turn's count; the turn's length guards against a
// message id that now names another message (another store, a replay).
type turnCount struct {
	size, tokens int
}

// historyTurns writes the window's messages as request turns and counts
// each (framing included).
func (b *Builder) historyTurns(channelID string, hist []state.Message) ([]state.ChatMessage, []int) {
	b.mu.Lock()
	known := b.turnTok[channelID]
	b.mu.Unlock()
	turns := make([]state.ChatMessage, len(hist))
	counts := make([]int, len(hist))
	next := make(turnTokens, len(hist))
	for i, m := range hist {
		turns[i] = historyTurn(m, channelID)
		c, ok := known[m.ID]
		if !ok || m.ID == 0 || c.size != len(turns[i].Content) {
			c = turnCount{size: len(turns[i].Content), tokens: b.tok.Message(turns[i])}
		}
		counts[i] = c.tokens
		next[m.ID] = c
	}
	b.mu.Lock()
	b.turnTok[channelID] = next
	b.mu.Unlock()
	return turns, counts
}

// trimHistory returns how many of the oldest turns to drop so that the
// rest take at most budget tokens: none when they fit, else up to the next
// block boundary that fits (or all). Boundaries are multiples of a quarter
// of the history limit counted over the channel's whole history (first is
// the index of the window's first message), so that the start of the
// window stays put from one tick to the next until another block has to
// go, and the provider's prompt cache keeps its prefix.
func (b *Builder) trimHistory(counts []int, first, budget int) int {
	sum := 0
	for _, n := range counts {
		sum += n
	}
	if sum <= budget {
		return 0
	}
	block := max(b.opts.HistoryLimit/4, 1)
	skip := 0
	for skip < len(counts) {
		// Drop up to the next boundary.
		next := skip + 1
		for next < len(counts) && (first+next)%block != 0 {
			next++
		}
		for _, n := range counts[skip:next] {
			sum -= n
		}
		skip = next
		if sum <= budget {
			break
		}
	}
	return skip
}

// systemTokens counts a channel's system message, once per distinct text.
func (b *Builder) systemTokens(channelID, system string) int {
	b.mu.Lock()
	c := b.cache[channelID]
	if c != nil && c.text == system {
		n := c.tokens
		b.mu.Unlock()
		return n
	}
	b.mu.Unlock()
	n := b.tok.Count(system) + tokens.PerMessage
	b.mu.Lock()
	if c != nil {
		c.text, c.tokens = system, n
	}
	b.mu.Unlock()
	return n
}
