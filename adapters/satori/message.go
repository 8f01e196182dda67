package satori

import (
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/airi-go/airi/state"
)

// truncMarker ends content that was cut to state.MaxContentBytes.
const truncMarker = " […truncated]"

// errNoChannel marks a message-created event without a channel.
var errNoChannel = errors.New("message event without channel id")

// convert turns a message-created event into the channel and message the
// runtime stores. now is used when the event carries no time.
func (a *Adapter) convert(ev *wireEvent, now time.Time) (state.Channel, state.Message, error) {
	platform, selfID := ev.bot()
	l := a.addLogin(login{Platform: platform, SelfID: selfID})
	wc := ev.channel()
	if wc == nil || wc.ID == "" {
		return state.Channel{}, state.Message{}, errNoChannel
	}
	guild := ev.guild()
	direct := (wc.Type != nil && *wc.Type == channelDirect) || guild == nil || guild.ID == ""

	user := ev.user()
	senderID := user.id()
	sender := displayName(ev.member(), user)

	var raw string
	var quoteID, quoteUser, msgID string
	var ts int64
	if m := ev.Message; m != nil {
		raw = m.content()
		msgID = m.id()
		if m.Quote != nil {
			quoteID = m.Quote.id()
			quoteUser = m.Quote.User.id()
		}
		switch {
		case m.CreatedAt.Set:
			ts = m.CreatedAt.V
		case m.Timestamp.Set:
			ts = m.Timestamp.V
		}
	}
	if ts == 0 && ev.Timestamp.Set {
		ts = ev.Timestamp.V
	}
	if msgID == "" {
		// Without an id of its own, a message gets one that no other
		// message shares, so that it can be told apart and replied to.
		msgID = a.localID(now)
	}
	content := ParseContent(raw)
	if quoteID == "" {
		quoteID = content.QuoteID
	}

	ch := state.Channel{
		ID:       a.channelID(l, string(wc.ID)),
		Platform: Name,
		NativeID: string(wc.ID),
		Group:    !direct,
	}
	switch {
	case wc.Name != "" && wc.ParentID != "" && guild != nil && guild.Name != "":
		// A thread is a channel of its own; its guild keeps it in context.
		ch.Title = guild.Name + " / " + wc.Name
	case wc.Name != "":
		ch.Title = wc.Name
	case guild != nil && guild.Name != "":
		ch.Title = guild.Name
	case direct && senderID != selfID:
		ch.Title = sender
	}
	self := senderID != "" && senderID == l.SelfID
	if sender != "" && !self {
		ch.Members = []string{sender}
	}
	msg := state.Message{
		ChannelID:   ch.ID,
		PlatformID:  msgID,
		SenderID:    qualifiedSender(l.Platform, senderID),
		SenderName:  sender,
		Self:        self,
		Content:     truncate(content.Text, state.MaxContentBytes),
		Media:       content.Media,
		ReplyTo:     quoteID,
		Mentioned:   !self && content.Mentions(l.SelfID),
		ReplyToSelf: !self && quoteUser != "" && quoteUser == l.SelfID,
		FromBot:     !self && user != nil && user.IsBot,
		Time:        msgTime(ts, now),
	}
	return ch, msg, nil
}

// displayName picks the name people see: the member nick first, then the
// user's nick and name, then the id.
func displayName(m *wireMember, u *wireUser) string {
	if m != nil {
		for _, s := range []string{m.Nick, m.Nickname, m.Name} {
			if s != "" {
				return s
			}
		}
	}
	if u != nil {
		for _, s := range []string{u.Nick, u.Nickname, u.Name, u.Username, u.id()} {
			if s != "" {
				return s
			}
		}
	}
	return ""
}

// msgTime reads a Satori timestamp (milliseconds since the epoch; some
// bridges send seconds).
func msgTime(ts int64, now time.Time) time.Time {
	switch {
	case ts <= 0:
		return now.UTC()
	case ts < 1e11:
		return time.Unix(ts, 0).UTC()
	default:
		return time.UnixMilli(ts).UTC()
	}
}

// truncate cuts s to at most max bytes on a rune boundary, ending it with
// a marker.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len(truncMarker)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + truncMarker
}

// localIDPrefix starts the ids made for messages that came without one.
const localIDPrefix = "local-"

// localID returns a message id unique within the process and across
// restarts, for a message the platform gave no id.
func (a *Adapter) localID(now time.Time) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.localSeq++
	return fmt.Sprintf("%s%d-%d", localIDPrefix, now.UnixNano(), a.localSeq)
}

// qualifiedSender is a user's id as the runtime keeps it: qualified with
// the login's platform ("qq:501"), since one Satori server bridges
// several platforms whose user ids may be the same number.
func qualifiedSender(platform, id string) string {
	if id == "" {
		return ""
	}
	if platform == "" {
		platform = Name
	}
	return platform + ":" + id
}
