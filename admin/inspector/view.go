package inspector

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/state"
)

// funcs are the template helpers. None of them returns template.HTML from
// chat text: everything they produce is escaped by the template.
func funcs() template.FuncMap {
	return template.FuncMap{
		"clock":        func(t time.Time) string { return t.UTC().Format("15:04:05") },
		"date":         func(t time.Time) string { return t.UTC().Format("2006-01-02") },
		"stamp":        func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05.000 UTC") },
		"iso":          func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) },
		"ago":          ago,
		"channelURL":   channelURL,
		"outcomeLabel": outcomeLabel,
		"notWoken":     notWoken,
		"outcomes":     state.Outcomes,
		"thousands":    thousands,
		"pretty":       prettyJSON,
	}
}

// channelURL is the timeline page of a channel.
func channelURL(id string) string { return "/channels/" + url.PathEscape(id) }

// outcomeLabel is how an outcome reads on a page.
func outcomeLabel(o string) string {
	switch o {
	case state.OutcomeSent:
		return "sent"
	case state.OutcomeSilent:
		return "silent"
	case state.OutcomeParseError:
		return "parse error"
	case state.OutcomeModelError:
		return "model error"
	}
	return o
}

// notWoken is how a message's decision reads on its row when the
// message woke nothing ("not woken: unaddressed"), and "" when it woke
// the bot or no policy decided: the reasons the bot stayed silent
// otherwise show only in the metrics and the database.
func notWoken(decision string) string {
	switch decision {
	case "", "direct", "ambient":
		return ""
	}
	if strings.HasPrefix(decision, "addressed") {
		return ""
	}
	return "not woken: " + decision
}

// ago says how long before now t was, coarsely; the zero time is "never".
func ago(now, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := now.Sub(t)
	switch {
	case d < 0:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// thousands writes an integer with separators: 12,345.
func thousands(n any) string {
	var s string
	switch n := n.(type) {
	case int:
		s = strconv.Itoa(n)
	case int64:
		s = strconv.FormatInt(n, 10)
	default:
		return fmt.Sprint(n)
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// prettyJSON indents raw JSON for reading; anything else is returned as is.
func prettyJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// action is the part of a flat action the timeline shows.
type action struct {
	Name      string `json:"action"`
	ChannelID string `json:"channelId"`
	Content   string `json:"content"`
}

func parseAction(raw json.RawMessage) action {
	var a action
	_ = json.Unmarshal(raw, &a)
	return a
}

// effect is one recorded effect of a tick: a message sent, a note, or a
// tool call with its arguments, outcome, error and the tool's text.
type effect struct {
	Kind      string          `json:"kind"`
	ChannelID string          `json:"channelId"`
	Content   string          `json:"content"`
	MessageID string          `json:"messageId"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	Outcome   string          `json:"outcome"`
	Error     string          `json:"error"`
}

// parseEffects splits a tick's effects into the tool calls and the rest.
func parseEffects(raw json.RawMessage) (sent, calls []effect) {
	var all []effect
	_ = json.Unmarshal(raw, &all)
	for _, e := range all {
		if e.Kind == actions.EffectTool {
			calls = append(calls, e)
		} else {
			sent = append(sent, e)
		}
	}
	return sent, calls
}

// posParam writes a timeline position for a URL: unix nanoseconds, then m
// or t and the id (1773500966535000000.t12).
func posParam(p state.TimelinePos) string {
	kind := "m"
	if p.Tick {
		kind = "t"
	}
	return fmt.Sprintf("%d.%s%d", p.Time.UnixNano(), kind, p.ID)
}

// parsePos is the inverse of posParam; "" is the zero position.
func parsePos(s string) (state.TimelinePos, error) {
	if s == "" {
		return state.TimelinePos{}, nil
	}
	ns, rest, ok := strings.Cut(s, ".")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || len(rest) < 2 || (rest[0] != 'm' && rest[0] != 't') {
		return state.TimelinePos{}, fmt.Errorf("position %q: want nanoseconds.m<id> or nanoseconds.t<id>", s)
	}
	id, err := strconv.ParseInt(rest[1:], 10, 64)
	if err != nil || id < 0 {
		return state.TimelinePos{}, fmt.Errorf("position %q: bad id", s)
	}
	return state.TimelinePos{Time: time.Unix(0, n).UTC(), Tick: rest[0] == 't', ID: id}, nil
}
