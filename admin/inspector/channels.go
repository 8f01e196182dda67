package inspector

import (
	"net/http"
	"sort"
	"time"

	"github.com/airi-go/airi/state"
)

// channelRow is one line of the channels page.
type channelRow struct {
	state.Channel
	Unread   int
	Activity state.ChannelActivity
	// Last is the latest of the last message and the last tick.
	Last   time.Time
	Badges []Badge
}

type channelsView struct {
	Now      time.Time
	Channels []channelRow
	// Badges says whether any channel has badges, to show their column.
	Badges bool
}

// channels is the admin server's home: every channel with its activity.
func (in *Inspector) channels(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	chs, err := in.opts.Store.Channels(ctx)
	if err != nil {
		in.fail(w, r, http.StatusInternalServerError, "list channels", err)
		return
	}
	unread, err := in.opts.Store.UnreadCounts(ctx)
	if err != nil {
		in.fail(w, r, http.StatusInternalServerError, "count unread", err)
		return
	}
	acts, err := in.opts.Store.ChannelActivity(ctx)
	if err != nil {
		in.fail(w, r, http.StatusInternalServerError, "channel activity", err)
		return
	}
	byID := make(map[string]state.ChannelActivity, len(acts))
	for _, a := range acts {
		byID[a.ChannelID] = a
	}
	v := channelsView{Now: time.Now()}
	for _, ch := range chs {
		row := channelRow{Channel: ch, Unread: unread[ch.ID], Activity: byID[ch.ID]}
		row.Last = row.Activity.LastMessage
		if row.Activity.LastTick.After(row.Last) {
			row.Last = row.Activity.LastTick
		}
		if in.opts.ChannelBadges != nil {
			row.Badges = in.opts.ChannelBadges(ctx, ch)
			v.Badges = v.Badges || len(row.Badges) > 0
		}
		v.Channels = append(v.Channels, row)
	}
	// The most recently active first: that is where an operator looks.
	sort.SliceStable(v.Channels, func(i, j int) bool { return v.Channels[i].Last.After(v.Channels[j].Last) })
	in.render(w, r, "channels", page{Title: "Channels", Nav: "channels", Body: v})
}
