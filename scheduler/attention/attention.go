// Package attention decides, for every incoming message, whether it wakes
// its channel: the rules that let a bot read a busy group without paying
// for a model call per message. Every message is stored and shown at the
// channel's next wake whatever the decision; the decision only says
// whether this message starts one, and why (or why not).
//
// The decision is pure and cheap (no I/O): it runs on every incoming
// message, before anything else looks at it.
package attention

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Mode says which group messages wake the bot.
type Mode string

// Modes of a group channel. Direct chats wake on every message in all of them.
const (
	// ModeAmbient: addressed messages wake the bot, and now and then the
	// talk among others does (an ambient wake).
	ModeAmbient Mode = "ambient"
	// ModeAddressed: only addressed messages wake the bot.
	ModeAddressed Mode = "addressed"
	// ModeAll: every message wakes the bot.
	ModeAll Mode = "all"
)

// Validate reports an unknown mode.
func (m Mode) Validate() error {
	switch m {
	case ModeAmbient, ModeAddressed, ModeAll:
		return nil
	}
	return fmt.Errorf("unknown group mode %q: want ambient, addressed or all", string(m))
}

// Wake reasons: the trigger recorded on the ticks of the wake a message starts.
const (
	ReasonDirect  = "direct"
	ReasonMention = "addressed:mention"
	ReasonReply   = "addressed:reply"
	ReasonAlias   = "addressed:alias"
	ReasonAmbient = "ambient"
	// ReasonMessage is an unaddressed group message under ModeAll.
	ReasonMessage = "message"
)

// Skip reasons: why a message woke nothing.
const (
	SkipUnaddressed = "unaddressed"
	SkipCooldown    = "cooldown"
	SkipBudget      = "budget"
	SkipSenderRate  = "sender-rate"
	SkipBot         = "bot"
)

// Rate is a number of messages per period.
type Rate struct {
	N   int
	Per time.Duration
}

// String writes the rate as ParseRate reads it.
func (r Rate) String() string { return strconv.Itoa(r.N) + "/" + r.Per.String() }

// ParseRate reads "20/1m": at most 20 messages in any minute. "0" or
// "off" turns the limit off.
func ParseRate(s string) (Rate, error) {
	s = strings.TrimSpace(s)
	if s == "0" || strings.EqualFold(s, "off") {
		return Rate{}, nil
	}
	n, per, ok := strings.Cut(s, "/")
	if !ok {
		return Rate{}, fmt.Errorf("rate %q: want messages/period such as 20/1m, or off", s)
	}
	count, err := strconv.Atoi(strings.TrimSpace(n))
	if err != nil || count < 1 {
		return Rate{}, fmt.Errorf("rate %q: want a whole number of messages of at least 1 before the slash", s)
	}
	d, err := time.ParseDuration(strings.TrimSpace(per))
	if err != nil || d <= 0 {
		return Rate{}, fmt.Errorf("rate %q: want a positive Go duration such as 1m after the slash", s)
	}
	return Rate{N: count, Per: d}, nil
}

// Settings are the attention rules of one channel.
type Settings struct {
	Mode Mode
	// Names are the bot's own names (display name, username): a message
	// that names it as a whole word mentions it.
	Names []string
	// Aliases are further words that address the bot (whole words, any case).
	Aliases []string
	// AmbientEvery is how many unaddressed messages an ambient wake needs at least.
	AmbientEvery int
	// AmbientMinGap is the least time between the previous model call of
	// the channel and an ambient wake.
	AmbientMinGap time.Duration
	// Cooldown is how long after the bot spoke only addressed messages wake it.
	Cooldown time.Duration
	// SenderRate bounds the messages of one sender that may wake the
	// channel; zero N means no bound.
	SenderRate Rate
	// IgnoreBots: messages from other bots never wake the channel.
	IgnoreBots bool
	// BotReplies bounds the bot's replies in a row to other bots (when
	// IgnoreBots is off); then only a human's message wakes it again.
	BotReplies int
	// BotPairRate bounds the messages this bot and one other bot exchange
	// in the channel (theirs and its replies to them, when IgnoreBots is
	// off); past it only a human wakes the channel for PairQuiet. Zero N
	// means no bound.
	BotPairRate Rate
}

// Defaults returns the settings used when none are configured.
func Defaults() Settings {
	return Settings{
		Mode: ModeAmbient, AmbientEvery: 30, AmbientMinGap: 10 * time.Minute,
		SenderRate: Rate{N: 20, Per: time.Minute}, IgnoreBots: true, BotReplies: 3,
		BotPairRate: Rate{N: 20, Per: time.Minute},
	}
}

// Validate reports every setting out of range.
func (s Settings) Validate() error {
	var errs []error
	if err := s.Mode.Validate(); err != nil {
		errs = append(errs, err)
	}
	if s.AmbientEvery < 1 {
		errs = append(errs, fmt.Errorf("ambient every %d: want at least 1", s.AmbientEvery))
	}
	if s.AmbientMinGap < 0 || s.Cooldown < 0 {
		errs = append(errs, errors.New("ambient gap and cooldown must not be negative"))
	}
	if s.SenderRate.N < 0 || (s.SenderRate.N > 0 && s.SenderRate.Per <= 0) {
		errs = append(errs, fmt.Errorf("sender rate %v: want messages/period", s.SenderRate))
	}
	if s.BotPairRate.N < 0 || (s.BotPairRate.N > 0 && s.BotPairRate.Per <= 0) {
		errs = append(errs, fmt.Errorf("bot pair rate %v: want messages/period", s.BotPairRate))
	}
	if s.BotReplies < 0 {
		errs = append(errs, fmt.Errorf("bot replies %d: want 0 or more", s.BotReplies))
	}
	return errors.Join(errs...)
}

// Policy is the settings of every channel: defaults and per-channel overrides.
type Policy struct {
	Default  Settings
	Channels map[string]Settings
}

// For returns the settings of a channel.
func (p *Policy) For(channelID string) Settings {
	if s, ok := p.Channels[channelID]; ok {
		return s
	}
	return p.Default
}

// Message is what the decision reads of an incoming message.
type Message struct {
	SenderID string
	Content  string
	Time     time.Time
	// Group is true in a group channel, false in a direct chat.
	Group bool
	// Mentioned: the adapter saw a mention of the bot (its @username, a
	// command, or a platform mention element).
	Mentioned bool
	// ReplyToSelf: the message replies to one of the bot's own.
	ReplyToSelf bool
	// FromBot: the sender is a bot.
	FromBot bool
}

// Decision is the outcome for one message: Wake with the reason recorded
// on the wake, or no wake with the reason it was skipped.
type Decision struct {
	Wake   bool
	Reason string
}

// Addressed reports a decision that a message addressed to the bot made.
func (d Decision) Addressed() bool { return strings.HasPrefix(d.Reason, "addressed:") }

// Channel is the attention state of one channel. It is not safe for
// concurrent use; its owner serializes the calls.
type Channel struct {
	unaddressed int // unaddressed messages since the previous model call
	lastCall    time.Time
	lastSpoke   time.Time
	botStreak   int  // replies in a row to a bot
	lastFromBot bool // the newest incoming message came from a bot
	pair        pairState
	senders     map[string]*window
	// swept is when senders idle for a whole period were last forgotten
	// (Unix nanoseconds).
	swept int64
}

// maxSenders bounds the senders whose rate is tracked per channel; beyond
// it, senders idle for a whole period are forgotten. Past sweepSenders
// they are forgotten too, at most once a period, so that a quiet group
// keeps only the senders of its last period or two.
const (
	maxSenders   = 1024
	sweepSenders = 16
)

// Decide returns whether m wakes the channel under s and updates the state.
func (c *Channel) Decide(s *Settings, m Message) Decision {
	if !m.Group {
		// A direct chat is the person talking to the bot: every message wakes it.
		return Decision{Wake: true, Reason: ReasonDirect}
	}
	if m.FromBot {
		c.lastFromBot = true
		c.pair.last, c.pair.rate = m.SenderID, s.BotPairRate
		if s.IgnoreBots || c.botStreak >= s.BotReplies {
			return Decision{Reason: SkipBot}
		}
		if c.pair.quietAt(m.Time) || !c.pair.exchange(s.BotPairRate, m.SenderID, m.Time) {
			return Decision{Reason: SkipBotPair}
		}
	} else {
		c.lastFromBot = false
		c.botStreak = 0
	}
	if !c.allowSender(s.SenderRate, m.SenderID, m.Time) {
		return Decision{Reason: SkipSenderRate}
	}
	if r := addressed(s, m); r != "" {
		return Decision{Wake: true, Reason: r}
	}
	if s.Mode == ModeAddressed {
		return Decision{Reason: SkipUnaddressed}
	}
	c.unaddressed++
	if s.Cooldown > 0 && !c.lastSpoke.IsZero() && m.Time.Sub(c.lastSpoke) < s.Cooldown {
		return Decision{Reason: SkipCooldown}
	}
	if s.Mode == ModeAll {
		return Decision{Wake: true, Reason: ReasonMessage}
	}
	if c.AmbientDue(s, m.Time) {
		return Decision{Wake: true, Reason: ReasonAmbient}
	}
	return Decision{Reason: SkipUnaddressed}
}

// AmbientDue reports an ambient wake owed at now: enough unaddressed
// messages since the previous model call, which is long enough ago, and
// no cooldown running. The periodic tick asks it too, so that an ambient
// wake held back by the gap happens once the gap has passed.
func (c *Channel) AmbientDue(s *Settings, now time.Time) bool {
	if s.Mode != ModeAmbient || c.unaddressed < s.AmbientEvery {
		return false
	}
	if s.Cooldown > 0 && !c.lastSpoke.IsZero() && now.Sub(c.lastSpoke) < s.Cooldown {
		return false
	}
	return c.lastCall.IsZero() || now.Sub(c.lastCall) >= s.AmbientMinGap
}

// Called records a model call of the channel at now: the messages so far
// were shown, and the ambient gap starts again.
func (c *Channel) Called(now time.Time) {
	c.lastCall = now
	c.unaddressed = 0
}

// Spoke records a message the bot sent at now: the cooldown starts, and a
// reply to a bot counts toward the bot-to-bot limits (the pair's under
// the rate its message was decided with).
func (c *Channel) Spoke(now time.Time) {
	c.lastSpoke = now
	if c.lastFromBot {
		c.botStreak++
		c.pair.exchange(c.pair.rate, c.pair.last, now)
	}
}

// addressed returns the reason m addresses the bot, or "".
func addressed(s *Settings, m Message) string {
	switch {
	case m.ReplyToSelf:
		return ReasonReply
	case m.Mentioned:
		return ReasonMention
	}
	if len(s.Names) == 0 && len(s.Aliases) == 0 {
		return ""
	}
	text := m.Content
	if !isLower(text) {
		text = strings.ToLower(text)
	}
	for _, n := range s.Names {
		if containsWord(text, n) {
			return ReasonMention
		}
	}
	for _, a := range s.Aliases {
		if containsWord(text, a) {
			return ReasonAlias
		}
	}
	return ""
}

// isLower reports text without upper-case letters (ASCII fast path).
func isLower(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// containsWord finds word (lower case) in text (lower case) as a whole
// word: not inside a longer run of letters, digits or underscores.
func containsWord(text, word string) bool {
	if word == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(text[i:], word)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(word)
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if (start == 0 || !wordRune(before)) && (end == len(text) || !wordRune(after)) {
			return true
		}
		i = start + 1
	}
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// NormalizeWords lower-cases and trims words, dropping empty ones.
func NormalizeWords(words []string) []string {
	var out []string
	for _, w := range words {
		if w = strings.ToLower(strings.TrimSpace(w)); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// window holds the times (Unix nanoseconds) of a sender's latest messages
// that counted toward the rate, oldest first, as a ring. It grows with the
// messages counted, up to the rate's count.
type window struct {
	times []int64
	next  int
}

// allowSender counts a message of sender at now against the rate and
// reports whether it is within it. Messages past the rate are not
// counted, so a flood pauses the sender only until the period allows again.
func (c *Channel) allowSender(r Rate, sender string, now time.Time) bool {
	if r.N <= 0 || sender == "" {
		return true
	}
	at := now.UnixNano()
	if c.senders == nil {
		c.senders = map[string]*window{}
	}
	w := c.senders[sender]
	if w == nil {
		n := len(c.senders)
		if n >= maxSenders || (n >= sweepSenders && at-c.swept >= int64(r.Per)) {
			c.forgetIdle(r, at)
			c.swept = at
		}
		w = &window{}
		c.senders[sender] = w
	}
	if len(w.times) < r.N {
		if len(w.times) == cap(w.times) {
			grown := make([]int64, len(w.times), max(min(2*cap(w.times), r.N), len(w.times)+1))
			copy(grown, w.times)
			w.times = grown
		}
		w.times = append(w.times, at)
		return true
	}
	// The ring is full: the oldest kept time is at next.
	if at-w.times[w.next] < int64(r.Per) {
		return false
	}
	w.times[w.next] = at
	w.next = (w.next + 1) % len(w.times)
	return true
}

// forgetIdle drops senders with no counted message within a period: their
// next message is within the rate whether they are remembered or not.
func (c *Channel) forgetIdle(r Rate, at int64) {
	for id, w := range c.senders {
		newest := w.times[(w.next+len(w.times)-1)%len(w.times)]
		if at-newest >= int64(r.Per) {
			delete(c.senders, id)
		}
	}
}
