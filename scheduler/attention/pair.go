package attention

import "time"

// SkipBotPair is the reason of a bot's message that woke nothing, and of
// a wake stopped before its next model call, because this bot and that
// one exchanged more than Settings.BotPairRate messages in the channel:
// for PairQuiet only a human's message wakes the bot there.
const SkipBotPair = "bot-pair"

// PairQuiet is how long only a human wakes a channel whose bot pair went
// over its budget.
const PairQuiet = time.Minute

// pairState is the bot-to-bot state of a channel: the exchanges of this
// bot with each other bot in the last period, and until when only a human
// wakes the channel.
type pairState struct {
	// last is the sender id of the newest incoming bot message, rate the
	// pair budget it was decided under.
	last      string
	rate      Rate
	exchanges map[string][]time.Time
	quiet     time.Time
}

// exchange counts one message between this bot and the other one at now
// (theirs, or a reply to them) and reports whether the pair is within its
// budget; past it, only a human wakes the channel for PairQuiet.
func (p *pairState) exchange(r Rate, other string, now time.Time) bool {
	if r.N <= 0 || other == "" {
		return true
	}
	if p.exchanges == nil {
		p.exchanges = make(map[string][]time.Time)
	}
	times := p.exchanges[other]
	i := 0
	for i < len(times) && now.Sub(times[i]) >= r.Per {
		i++
	}
	times = append(times[i:], now)
	p.exchanges[other] = times
	if len(p.exchanges) > maxSenders {
		for id, ts := range p.exchanges {
			if len(ts) == 0 || now.Sub(ts[len(ts)-1]) >= r.Per {
				delete(p.exchanges, id)
			}
		}
	}
	if len(times) > r.N {
		p.quiet = now.Add(PairQuiet)
		return false
	}
	return true
}

// quietAt reports whether only a human wakes the channel at now.
func (p *pairState) quietAt(now time.Time) bool { return now.Before(p.quiet) }

// HoldsBots returns why the next model call of a wake must not be made,
// or "": the newest incoming message is another bot's and the bot has
// replied to bots BotReplies times in a row (SkipBot), or the pair went
// over its budget (SkipBotPair). The wake asks before every call after
// its first, so that two bots answering each other cannot keep one wake
// going on each other's messages.
func (c *Channel) HoldsBots(s *Settings, now time.Time) string {
	if !c.lastFromBot || s.IgnoreBots {
		return ""
	}
	if c.botStreak >= s.BotReplies {
		return SkipBot
	}
	if c.pair.quietAt(now) {
		return SkipBotPair
	}
	return ""
}
