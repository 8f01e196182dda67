package planner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/state"
)

// Limits of the action history in the state message: the current wake in
// full, at most this many records of earlier wakes, one line each.
const (
	maxEarlierRecords = 6
	maxEarlierRunes   = 120
)

// readShown replaces a read result that an earlier request of the wake
// showed in full: its messages are read now (the newest of this channel's
// are in the chat history), and a wake of several reads must not pile
// their texts up in one state message.
const readShown = "shown to you on an earlier call and now read; the newest are in the chat history"

// stateData completes the static data with what changes every tick.
// hist is the history window the request shows.
func (b *Builder) stateData(d prompts.Data, in Input, hist []state.Message) prompts.Data {
	tz := b.zone(in.Now)
	d.Now = in.Now.In(tz)
	d.Remaining = in.Remaining
	d.Notice = in.Notice
	if len(in.Incoming) > 0 {
		d.Incoming = make([]prompts.Message, len(in.Incoming))
		answers := otherBotsAnswers(in.Incoming, in.History)
		for i, m := range in.Incoming {
			d.Incoming[i] = prompts.Message{
				ID:        messageRef(m),
				Sender:    prompts.Clip(m.SenderName, prompts.MaxNameRunes),
				Name:      senderName(m.SenderName),
				Content:   m.Content,
				Time:      m.Time.In(tz),
				ReplyTo:   m.ReplyTo,
				Mentioned: m.Mentioned,
				Self:      m.Self,
				Bot:       m.FromBot,
			}
			if answers != nil {
				d.Incoming[i].Answers = answers[i]
			}
		}
	}
	for _, r := range in.Reactions {
		d.Reactions = append(d.Reactions, prompts.Reaction{
			Sender: senderName(r.SenderName), Bot: r.FromBot,
			Emoji: emojiText(r.Emoji), MessageID: r.MessageID, Removed: r.Removed,
		})
	}
	var sent map[string]bool // own messages in the window, by content
	for _, m := range hist {
		if m.Self {
			if sent == nil {
				sent = map[string]bool{}
			}
			sent[m.Content] = true
		}
	}
	var earlier []state.ActionRecord
	for i, r := range in.Actions {
		if r.Wake == in.Wake {
			// The result of the previous call is shown whole: a read result
			// lists messages that are marked read once this request is
			// answered, so it must show every one of them.
			latest := i == len(in.Actions)-1
			v := b.actionView(r, in.Channel.ID, false, latest)
			if r.Name == actions.NameSendMessage && r.OK && sent[sentContent(r.Action)] {
				// The send is the assistant turn just above; say so
				// instead of repeating its text.
				v.Action = compactAction(r, in.Channel.ID) + " (shown in the history above)"
			}
			d.Actions = append(d.Actions, v)
		} else if !r.OK || !quietEarlier(r, sent) {
			earlier = append(earlier, r)
		}
	}
	if len(earlier) > maxEarlierRecords {
		earlier = earlier[len(earlier)-maxEarlierRecords:]
	}
	for _, r := range earlier {
		d.Earlier = append(d.Earlier, b.actionView(r, in.Channel.ID, true, false))
	}
	d.Unread = unreadView(in)
	return d
}

// quietEarlier reports an earlier wake's record that tells the model
// nothing the history does not: a continue, or a send whose message is
// in the history as an assistant turn.
func quietEarlier(r state.ActionRecord, sent map[string]bool) bool {
	switch r.Name {
	case actions.NameContinue:
		return true
	case actions.NameSendMessage:
		return sent[sentContent(r.Action)]
	}
	return false
}

// emojiText is a reaction's emoji as the state message prints it: as it
// is when it holds only symbols and their joiners (👍, ❤‍🔥), quoted when
// it holds letters, digits, spaces or controls (a custom emoji's name),
// so that nothing in it passes for the runtime's words.
func emojiText(e string) string {
	e = prompts.Clip(e, 16)
	for _, r := range e {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsSpace(r) || unicode.IsControl(r) || r == '"' || r == '\\' {
			return prompts.Quote(e)
		}
	}
	return e
}

// messageRef is the id the model passes as replyTo: the platform's id, or
// the stored id when the platform gave none.
func messageRef(m state.Message) string {
	if m.PlatformID != "" {
		return m.PlatformID
	}
	if m.ID != 0 {
		return strconv.FormatInt(m.ID, 10)
	}
	return ""
}

// actionView shows one record: compact for earlier wakes; a read result
// whole when it is the latest record, summarized otherwise.
func (b *Builder) actionView(r state.ActionRecord, channelID string, compact, latest bool) prompts.Action {
	act := "(no valid action)"
	if len(r.Action) > 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, r.Action); err == nil {
			act = buf.String()
		} else {
			act = string(r.Action)
		}
	}
	result := strings.TrimSpace(r.Result)
	if r.Name == actions.NameReadUnread && r.OK && strings.Contains(result, "\n") && !latest {
		first, _, _ := strings.Cut(result, "\n")
		result = strings.TrimSuffix(strings.TrimSpace(first), ":") + "; " + readShown
		if !readsChannel(r.Action, channelID) {
			result = strings.TrimSuffix(strings.TrimSpace(first), ":") + "; shown to you on an earlier call and now read"
		}
	}
	if !compact {
		act = cutStrings(act, r.OK)
	}
	if compact {
		// Earlier turns are reminders: what was sent is in the history
		// already, so the name, where it went and a failure are enough.
		act = compactAction(r, channelID)
		if r.OK {
			result = ""
		} else {
			result = oneLine(result, maxEarlierRunes)
		}
		return prompts.Action{Name: r.Name, Action: act, OK: r.OK, Result: result, Time: r.Time}
	}
	if result == "" {
		if r.OK {
			result = "ok"
		} else {
			result = "failed"
		}
	}
	return prompts.Action{Name: r.Name, Action: act, OK: r.OK, Result: result, Time: r.Time}
}

// compactAction names an earlier action in a few words: its name, and the
// channel when it is not the tick's own.
func compactAction(r state.ActionRecord, channelID string) string {
	name := r.Name
	if name == "" {
		name = "(no valid action)"
	}
	var p struct {
		ChannelID any `json:"channelId"`
	}
	if json.Unmarshal(r.Action, &p) == nil && p.ChannelID != nil {
		if id := fmt.Sprint(p.ChannelID); id != channelID {
			name += " to " + prompts.Quote(id)
		}
	}
	return name
}

// cutStrings shields the state message from an action's long text: a
// string value over the per-message cap (the history's cap when the action
// failed or was refused, as a send over the length limits is) is cut with a
// marker. A refused send of 100 KB would otherwise come back whole in every
// request of the wake. An action without a long value is left as it is.
func cutStrings(act string, ok bool) string {
	n := prompts.MaxMessageRunes
	if !ok {
		n = prompts.MaxHistoryRunes
	}
	if len(act) <= n+64 {
		return act
	}
	dec := json.NewDecoder(strings.NewReader(act))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return act
	}
	cut := false
	v = cutValue(v, n, &cut)
	if !cut {
		return act
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return act
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// cutValue cuts the strings of a decoded JSON value to n runes with a
// marker, setting *cut when it cut one.
func cutValue(v any, n int, cut *bool) any {
	switch x := v.(type) {
	case string:
		if utf8.RuneCountInString(x) > n {
			*cut = true
			return prompts.Cut(x, n)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = cutValue(e, n, cut)
		}
	case []any:
		for i, e := range x {
			x[i] = cutValue(e, n, cut)
		}
	}
	return v
}

// sentContent returns the content of a send action, flat or wrapped.
func sentContent(raw json.RawMessage) string {
	var p struct {
		Content    *string `json:"content"`
		Parameters struct {
			Content string `json:"content"`
		} `json:"parameters"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return ""
	}
	if p.Content != nil {
		return *p.Content
	}
	return p.Parameters.Content
}

// readsChannel reports whether a read action names the tick's channel.
func readsChannel(raw json.RawMessage, channelID string) bool {
	var p struct {
		ChannelID  any `json:"channelId"`
		Parameters struct {
			ChannelID any `json:"channelId"`
		} `json:"parameters"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return false
	}
	id := p.ChannelID
	if id == nil {
		id = p.Parameters.ChannelID
	}
	switch v := id.(type) {
	case string:
		return v == channelID
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64) == channelID
	}
	return false
}

// oneLine folds s onto one line and cuts it to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func unreadView(in Input) prompts.Unread {
	var u prompts.Unread
	if len(in.Unread) == 0 && in.UnreadOmitted.Channels == 0 {
		return u
	}
	titles := make(map[string]string, len(in.Channels))
	for _, c := range in.Channels {
		titles[c.ID] = c.Title
	}
	if in.Channel.Title != "" {
		titles[in.Channel.ID] = in.Channel.Title
	}
	listed := UnreadListed(in.Unread, in.Channel.ID)
	u.Total = in.UnreadOmitted.Messages
	for _, n := range in.Unread {
		if n > 0 {
			u.Total += n
		}
	}
	for _, id := range listed {
		u.Channels = append(u.Channels, prompts.UnreadChannel{ID: id, Title: prompts.Clip(titles[id], prompts.MaxTitleRunes), Count: in.Unread[id], Current: id == in.Channel.ID})
	}
	u.More = len(in.Unread) - len(listed) + in.UnreadOmitted.Channels
	for _, n := range in.Unread {
		if n <= 0 {
			u.More--
		}
	}
	return u
}

// MaxUnreadListed bounds the channels the state message lists by name
// with their unread counts; the rest are counted, so that a bot in many
// busy chats does not pay for all of them in every request.
const MaxUnreadListed = 10

// UnreadListed returns the channels of unread (with a positive count) that
// the state message lists, in the order it lists them: current first,
// then the others by id. Beyond MaxUnreadListed, the others with the most
// unread are kept (ties by id).
func UnreadListed(unread map[string]int, current string) []string {
	room := MaxUnreadListed
	ids := make([]string, 0, min(len(unread), MaxUnreadListed))
	if unread[current] > 0 {
		ids = append(ids, current)
		room--
	}
	// The others with the most unread, ties by id: a bounded insertion
	// keeps this linear in the channels however many there are.
	type entry struct {
		id string
		n  int
	}
	before := func(a, b entry) bool { return a.n > b.n || (a.n == b.n && a.id < b.id) }
	top := make([]entry, 0, room+1)
	for id, n := range unread {
		if n <= 0 || id == current {
			continue
		}
		e := entry{id, n}
		if len(top) == room && !before(e, top[len(top)-1]) {
			continue
		}
		i := sort.Search(len(top), func(i int) bool { return before(e, top[i]) })
		top = append(top, entry{})
		copy(top[i+1:], top[i:])
		top[i] = e
		if len(top) > room {
			top = top[:room]
		}
	}
	others := make([]string, len(top))
	for i, e := range top {
		others[i] = e.id
	}
	sort.Strings(others)
	return append(ids, others...)
}
