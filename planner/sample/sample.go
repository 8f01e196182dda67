// Package sample is the situation `airi prompt render` shows: a built-in
// planner input of a direct or a group chat, and the --state file that
// replaces parts of it (the channel, history, new messages, actions,
// unread counts and time), so that a template can be previewed without a
// bot, a store or a model.
package sample

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/state"
)

// State is a --state file of `airi prompt render`, in JSON: the parts of
// the sample it replaces. Every field is optional.
type State struct {
	Channel *struct {
		ID      string   `json:"id"`
		Title   string   `json:"title"`
		Members []string `json:"members"`
	} `json:"channel"`
	History  []Message `json:"history"`
	Incoming []Message `json:"incoming"`
	Actions  []struct {
		Action json.RawMessage `json:"action"`
		Result string          `json:"result"`
		OK     *bool           `json:"ok"`
	} `json:"actions"`
	Unread map[string]int `json:"unread"`
	Now    string         `json:"now"`
}

// Message is a message of a State; an empty ID is numbered, an empty
// Time is the State's now.
type Message struct {
	ID      string `json:"id"`
	Sender  string `json:"sender"`
	Content string `json:"content"`
	Self    bool   `json:"self"`
	Time    string `json:"time"`
}

// Input is the built-in situation `airi prompt render` shows on platform:
// a few messages of history, two new ones and another channel with unread
// messages, in a group chat or a direct one.
func Input(platform string, group bool) planner.Input {
	now := time.Date(2026, 3, 14, 21, 40, 0, 0, time.UTC)
	ch := state.Channel{ID: "42", Platform: platform, Title: "Ada"}
	if group {
		ch = state.Channel{ID: "-1001234567890", Platform: platform, Group: true, Title: "Harbour Lights", Members: []string{"Ada", "Bo", "Cyril"}}
	}
	at := func(min int) time.Time { return now.Add(time.Duration(min-30) * time.Minute) }
	msg := func(id int64, sender, text string, self bool, min int) state.Message {
		return state.Message{ID: id, ChannelID: ch.ID, PlatformID: strconv.FormatInt(id, 10), SenderName: sender, Content: text, Self: self, Time: at(min), Read: true}
	}
	in := planner.Input{
		Platform: platform,
		Channel:  ch,
		Now:      now,
		Wake:     1,
		Channels: []state.Channel{ch, {ID: "-1009876543210", Platform: platform, Group: true, Title: "Night Sky Club"}},
		Unread:   map[string]int{"-1009876543210": 3},
	}
	if group {
		in.History = []state.Message{
			msg(101, "Ada", "anyone up for the meteor shower tonight?", false, 1),
			msg(102, "Bo", "if the clouds behave", false, 3),
			msg(103, "Juni", "they won't. they never do. bring a thermos anyway", true, 4),
			msg(104, "Cyril", "what time does it peak?", false, 9),
		}
		in.Incoming = []state.Message{
			msg(105, "Ada", "@Juni you'd know, when's the peak?", false, 29),
			msg(106, "Bo", "and which direction do we look", false, 30),
		}
		in.Incoming[0].Mentioned = true
	} else {
		in.History = []state.Message{
			msg(101, "Ada", "I finally bought a telescope", false, 1),
			msg(102, "Juni", "oh no. you're one of us now. what kind?", true, 2),
		}
		in.Incoming = []state.Message{msg(103, "Ada", "a small refractor, 80mm. what should I look at first?", false, 30)}
	}
	in.HistoryTotal = len(in.History)
	return in
}

// Apply replaces the parts of in that the State in raw gives. An error
// names the field at fault.
func Apply(in *planner.Input, raw []byte) error {
	var st State
	if err := json.Unmarshal(raw, &st); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	if st.Now != "" {
		t, err := time.Parse(time.RFC3339, st.Now)
		if err != nil {
			return fmt.Errorf("now: %w", err)
		}
		in.Now = t
	}
	if st.Channel != nil {
		if st.Channel.ID != "" {
			in.Channel.ID = st.Channel.ID
		}
		if st.Channel.Title != "" {
			in.Channel.Title = st.Channel.Title
		}
		if st.Channel.Members != nil {
			in.Channel.Members = st.Channel.Members
		}
		in.Channels[0] = in.Channel
	}
	conv := func(field string, ms []Message, read bool) ([]state.Message, error) {
		out := make([]state.Message, 0, len(ms))
		for i, m := range ms {
			t := in.Now
			if m.Time != "" {
				var err error
				if t, err = time.Parse(time.RFC3339, m.Time); err != nil {
					return nil, fmt.Errorf("%s[%d].time: %w", field, i, err)
				}
			}
			id := m.ID
			if id == "" {
				id = fmt.Sprintf("%s-%d", field, i+1)
			}
			out = append(out, state.Message{ChannelID: in.Channel.ID, PlatformID: id, SenderName: m.Sender, Content: m.Content, Self: m.Self, Time: t, Read: read})
		}
		return out, nil
	}
	var err error
	if st.History != nil {
		if in.History, err = conv("history", st.History, true); err != nil {
			return err
		}
		in.HistoryTotal = len(in.History)
	} else {
		for i := range in.History {
			in.History[i].ChannelID = in.Channel.ID
		}
	}
	if st.Incoming != nil {
		if in.Incoming, err = conv("incoming", st.Incoming, false); err != nil {
			return err
		}
	} else {
		for i := range in.Incoming {
			in.Incoming[i].ChannelID = in.Channel.ID
		}
	}
	if st.Actions != nil {
		in.Actions = nil
		for i, a := range st.Actions {
			var head struct {
				Action string `json:"action"`
			}
			if len(a.Action) > 0 {
				if err := json.Unmarshal(a.Action, &head); err != nil {
					return fmt.Errorf("actions[%d].action: %w", i, err)
				}
			}
			ok := true
			if a.OK != nil {
				ok = *a.OK
			}
			in.Actions = append(in.Actions, state.ActionRecord{ChannelID: in.Channel.ID, Wake: in.Wake, Action: a.Action, Name: head.Action, OK: ok, Result: a.Result, Time: in.Now})
		}
	}
	if st.Unread != nil {
		in.Unread = st.Unread
	}
	return nil
}
