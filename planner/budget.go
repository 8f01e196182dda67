package planner

import (
	"math"
	"strings"

	"github.com/airi-go/airi/internal/tokens"
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

// turnCount is the token count of one history turn, remembered by
// message id so that a window that stays put is not counted again; the
// turn's length guards against an id that now names another message
// (another store, a replay).
type turnCount struct {
	id           int64
	size, tokens int32
}

// historyTurns writes the window's messages as request turns and counts
// each (framing included).
func (b *Builder) historyTurns(channelID string, hist []state.Message) ([]state.ChatMessage, []int) {
	b.mu.Lock()
	known := b.chats.get(channelID).turns
	b.mu.Unlock()
	turns := make([]state.ChatMessage, len(hist))
	counts := make([]int, len(hist))
	next := make([]turnCount, len(hist))
	j := 0 // the window moves forward: known is searched from the last match
	for i, m := range hist {
		turns[i] = historyTurn(m, channelID)
		size := len(turns[i].Content)
		c, ok := turnCount{}, false
		if m.ID != 0 {
			c, j, ok = findTurn(known, m.ID, j)
		}
		if !ok || int(c.size) != size {
			c = turnCount{size: int32(min(size, math.MaxInt32)), tokens: int32(min(b.tok.Message(turns[i]), math.MaxInt32))}
		}
		c.id = m.ID
		counts[i] = int(c.tokens)
		next[i] = c
	}
	b.mu.Lock()
	b.chats.update(channelID, func(e *chatCache) { e.turns = next })
	b.mu.Unlock()
	return turns, counts
}

// findTurn finds id in known, looking from from onwards first; it returns
// the count, where to look for the next id and whether it was found.
func findTurn(known []turnCount, id int64, from int) (turnCount, int, bool) {
	for k := range known {
		i := (from + k) % len(known)
		if known[i].id == id {
			return known[i], i + 1, true
		}
	}
	return turnCount{}, from, false
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

// sectionCount is the token count of one static section's text, alone
// and followed by the blank line that joins it to the next.
type sectionCount struct {
	text          string
	alone, joined int // -1 until counted
}

// maxSectionTexts bounds the section texts remembered across channels;
// past it the memory starts over (sections particular to a channel are
// what fills it).
const maxSectionTexts = 4096

// sectionText returns the shared copy of a static section's text.
func (b *Builder) sectionText(text string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c, ok := b.sections[text]; ok {
		return c.text
	}
	if len(b.sections) >= maxSectionTexts {
		clear(b.sections)
	}
	b.sections[text] = &sectionCount{text: text, alone: -1, joined: -1}
	return text
}

// systemTokens counts a system message, framing included, section by
// section: each static section's count is remembered across channels.
// The o200k pre-tokenizer never joins the pieces on either side of the
// blank line between two sections, as long as the next one does not
// start with "/" (punctuation followed by line breaks takes a slash with
// it), so the sum is the count of the whole; otherwise the whole is counted.
func (b *Builder) systemTokens(system string, infos []state.Section) int {
	n := tokens.PerMessage
	for i, info := range infos {
		last := i == len(infos)-1
		end := info.End
		if !last {
			next := infos[i+1].Start
			if next != end+2 || next >= len(system) || system[next] == '/' || info.Start == end {
				return b.tok.Count(system) + tokens.PerMessage
			}
			end = next
		} else if end != len(system) {
			return b.tok.Count(system) + tokens.PerMessage
		}
		text := system[info.Start:info.End]
		if info.Cache == string(prompts.CacheVolatile) {
			n += b.tok.Count(system[info.Start:end])
			continue
		}
		n += b.staticCount(text, system[info.Start:end], !last)
	}
	return n
}

// staticCount counts segment (text, with the joining blank line when
// joined), once per distinct text.
func (b *Builder) staticCount(text, segment string, joined bool) int {
	b.mu.Lock()
	c, ok := b.sections[text]
	if ok {
		n := c.alone
		if joined {
			n = c.joined
		}
		if n >= 0 {
			b.mu.Unlock()
			return n
		}
	}
	b.mu.Unlock()
	n := b.tok.Count(segment)
	b.mu.Lock()
	if !ok {
		if len(b.sections) >= maxSectionTexts {
			clear(b.sections)
		}
		c = &sectionCount{text: strings.Clone(text), alone: -1, joined: -1}
		b.sections[c.text] = c
	}
	if joined {
		c.joined = n
	} else {
		c.alone = n
	}
	b.mu.Unlock()
	return n
}
