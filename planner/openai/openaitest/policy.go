package openaitest

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// EchoOptions tune the Echo policy.
type EchoOptions struct {
	// All echoes every new message of the tick, joined by " / ", instead
	// of the newest only.
	All bool
	// Prefix starts every echo; "echo: " when empty.
	Prefix string
}

// Echo is a scripted model for end-to-end tests. For each request it
// reads the state message (the last user message) loosely:
//
//   - when the state says more messages are unread here, it answers
//     read_unread_messages for the channel;
//   - when the state lists new messages (lines such as
//     `- id "7" 12:00 "Ada": "hello"` under a "New messages" heading), it
//     answers send_message to the channel, echoing the newest one (or all);
//   - when there are none but the history ends with other people's turns
//     (messages delivered in an earlier tick that got no reply, for example
//     because the answer could not be parsed), it echoes the newest of those;
//   - otherwise it answers {"action":"continue"}.
//
// The channel is the request's user field without its "airi:" prefix,
// else the first `channel id "X"` or `Channel "X"` of the state message,
// then of the other messages, else
// the channelId of the newest assistant turn, else "console".
func Echo(opts EchoOptions) AnswerFunc {
	prefix := opts.Prefix
	if prefix == "" {
		prefix = "echo: "
	}
	return func(_ context.Context, req Request) Reply {
		s := readSituation(req)
		switch {
		case s.moreUnread:
			return Text(action("read_unread_messages", s.channel, ""))
		case len(s.incoming) > 0:
			return Text(action("send_message", s.channel, prefix+pick(s.incoming, opts.All)))
		case len(s.unanswered) > 0:
			return Text(action("send_message", s.channel, prefix+pick(s.unanswered, opts.All)))
		}
		return Text(`{"action":"continue"}`)
	}
}

// ReadFirst is the habit of models that read before they reply: on a
// wake's first call that shows new messages (the state's "This turn so
// far" names no read yet) it answers read_unread_messages for the
// channel; every other call is next's.
func ReadFirst(next AnswerFunc) AnswerFunc {
	return func(ctx context.Context, req Request) Reply {
		s := readSituation(req)
		// The state message's records of the current wake.
		_, turn, _ := strings.Cut(req.LastUser(), "This turn so far:")
		if (len(s.incoming) > 0 || s.moreUnread) && !strings.Contains(turn, "read_unread_messages") {
			return Text(action("read_unread_messages", s.channel, ""))
		}
		return next(ctx, req)
	}
}

func pick(texts []string, all bool) string {
	if all {
		return strings.Join(texts, " / ")
	}
	return texts[len(texts)-1]
}

func action(name, channel, content string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(struct {
		Action    string `json:"action"`
		ChannelID string `json:"channelId"`
		Content   string `json:"content,omitempty"`
	}{name, channel, content}) // strings always encode
	return strings.TrimSuffix(b.String(), "\n")
}

// situation is what the Echo policy reads from a request.
type situation struct {
	channel    string
	incoming   []string // texts of the state's new messages, oldest first
	unanswered []string // texts of the history's trailing user turns
	moreUnread bool
}

var (
	// An incoming message line: "- ", optional id (quoted or not) and
	// clock, the sender
	// (quoted or not), optional notes in parentheses, ": ", the text.
	incomingLine = regexp.MustCompile(`^\s*[-*]\s+(?:(?:id|#)\s*(?:"[^"]*"|[^\s"]+)\s+)?(?:\[?\d{1,2}:\d{2}(?::\d{2})?\]?\s+)?("(?:[^"\\]|\\.)*"|[^"{(\[:][^:]*?)((?:\s*\([^)]*\))*)\s*:\s(.*)$`)
	channelIDRe  = regexp.MustCompile(`(?i)\bchannel(?:\s+id)?:?\s+("(?:[^"\\]|\\.)*"|-?\d+\b)`)
	assistantCh  = regexp.MustCompile(`"channelId"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)`)
	moreUnreadRe = regexp.MustCompile(`(?i)\b\d+\s+more\s+unread\s+here`)
	historyTurn  = regexp.MustCompile(`^([^:\n]{1,80}):\s(.*)$`)
)

func readSituation(req Request) situation {
	var s situation
	stateIdx := -1
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			stateIdx = i
			break
		}
	}
	if stateIdx < 0 {
		s.channel = channelOf(req, -1)
		return s
	}
	st := req.Messages[stateIdx].Content
	s.channel = channelOf(req, stateIdx)
	s.incoming = incomingOf(st)
	s.moreUnread = moreUnreadRe.MatchString(st)
	// Trailing user turns of the history, newest last.
	for i := stateIdx - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != "user" {
			break
		}
		s.unanswered = append([]string{turnText(m.Content)}, s.unanswered...)
	}
	return s
}

// incomingOf finds the new-message lines of a state message: under a
// heading that mentions new or incoming messages when there is one, else
// anywhere.
func incomingOf(st string) []string {
	lines := strings.Split(st, "\n")
	var out []string
	inSection := false
	sawHeading := false
	for _, line := range lines {
		low := strings.ToLower(line)
		trimmed := strings.TrimSpace(line)
		if !strings.HasPrefix(trimmed, "-") && !strings.HasPrefix(trimmed, "*") &&
			(strings.Contains(low, "new message") || strings.Contains(low, "incoming")) &&
			!strings.Contains(low, "no new message") && !strings.Contains(low, "no incoming") {
			inSection, sawHeading = true, true
			continue
		}
		if inSection && trimmed != "" && !strings.HasPrefix(trimmed, "-") && !strings.HasPrefix(trimmed, "*") {
			inSection = false
		}
		if inSection {
			if t, ok := messageText(line); ok {
				out = append(out, t)
			}
		}
	}
	if sawHeading {
		return out
	}
	for _, line := range lines {
		if t, ok := messageText(line); ok {
			out = append(out, t)
		}
	}
	return out
}

// messageText reads the text of one incoming message line.
func messageText(line string) (string, bool) {
	m := incomingLine.FindStringSubmatch(line)
	if m == nil {
		return "", false
	}
	return unquote(strings.TrimSpace(m[3])), true
}

// turnText reads a history user turn, "Name: text" with the text quoted
// or not.
func turnText(content string) string {
	content = strings.TrimSpace(content)
	if m := historyTurn.FindStringSubmatch(content); m != nil && !strings.HasPrefix(m[1], "{") {
		return unquote(strings.TrimSpace(m[2]))
	}
	return unquote(content)
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' {
		var out string
		if json.Unmarshal([]byte(s), &out) == nil {
			return out
		}
	}
	return s
}

func channelOf(req Request, stateIdx int) string {
	if id, ok := strings.CutPrefix(req.User, "airi:"); ok && id != "" {
		return id
	}
	// The state message first, then the system message and the rest.
	order := make([]int, 0, len(req.Messages))
	if stateIdx >= 0 {
		order = append(order, stateIdx)
	}
	for i := range req.Messages {
		if i != stateIdx && req.Messages[i].Role != "assistant" {
			order = append(order, i)
		}
	}
	for _, i := range order {
		// The first mention: the header of the state message, the
		// runtime line of the system message.
		if m := channelIDRe.FindStringSubmatch(req.Messages[i].Content); m != nil && unquote(m[1]) != "" {
			return unquote(m[1])
		}
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role != "assistant" {
			continue
		}
		if m := assistantCh.FindStringSubmatch(req.Messages[i].Content); m != nil && unquote(m[1]) != "" {
			return unquote(m[1])
		}
	}
	return "console"
}

// FaultOptions tune Faults.
type FaultOptions struct {
	// Rate is the share of calls that get a fault, 0 to 1.
	Rate float64
	// Seed makes the faults repeatable: the same seed and the same order
	// of calls give the same faults.
	Seed uint64
	// RetryAfter is the Retry-After header of the 429 fault ("1" when
	// empty).
	RetryAfter string
}

// Fault kinds Faults injects, in the order their draws map to.
const (
	FaultRateLimit = "rate_limit" // 429 with Retry-After
	FaultServer    = "server"     // 500
	FaultHang      = "hang"       // no answer until the client gives up
	FaultProse     = "prose"      // 200 with prose instead of a JSON action
)

var faultKinds = [...]string{FaultRateLimit, FaultServer, FaultHang, FaultProse}

// Faults wraps next so that about Rate of the calls get one of the fault
// kinds above instead, drawn evenly from a generator seeded with Seed.
func Faults(next AnswerFunc, opts FaultOptions) AnswerFunc {
	retryAfter := opts.RetryAfter
	if retryAfter == "" {
		retryAfter = "1"
	}
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))
	return func(ctx context.Context, req Request) Reply {
		mu.Lock()
		hit := rng.Float64() < opts.Rate
		kind := faultKinds[rng.IntN(len(faultKinds))]
		mu.Unlock()
		if !hit {
			return next(ctx, req)
		}
		return FaultReply(kind, retryAfter)
	}
}

// FaultReply is the reply of one fault kind.
func FaultReply(kind, retryAfter string) Reply {
	switch kind {
	case FaultRateLimit:
		return Status(429, retryAfter)
	case FaultServer:
		return Status(500, "")
	case FaultHang:
		return Hang()
	}
	return Text("Sure, I'd be glad to answer that! Let me think about what to say to everyone here.")
}

// ParseFaultRate reads a rate given as a fraction ("0.2") or a percentage
// ("20%").
func ParseFaultRate(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(p, 64)
		return v / 100, err
	}
	return strconv.ParseFloat(s, 64)
}
