package satori_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/airi-go/airi/adapters/satori/satoritest"
	"github.com/airi-go/airi/state"
)

// reactionInbox is an inbox that takes reactions too.
type reactionInbox struct {
	*inbox
	rmu       sync.Mutex
	reactions []state.Reaction
	got       chan struct{}
}

func (in *reactionInbox) DeliverReaction(_ context.Context, ch state.Channel, r state.Reaction) error {
	if err := r.Validate(); err != nil {
		return err
	}
	in.rmu.Lock()
	in.reactions = append(in.reactions, r)
	in.rmu.Unlock()
	in.got <- struct{}{}
	return nil
}

func TestReactions(t *testing.T) {
	for _, rv := range revisions {
		t.Run(rv.name, func(t *testing.T) {
			srv := satoritest.NewServer(satoritest.Options{Revision: rv.rev, Token: "tok"})
			defer srv.Close()
			cfg := testConfig(srv)
			cfg.Token = "tok"
			in := &reactionInbox{inbox: newInbox(), got: make(chan struct{}, 8)}
			a := start(t, cfg, &cursors{}, in)

			if err := a.React(context.Background(), state.Reacting{ChannelID: "-100123", MessageID: "m1", Emoji: "👍"}); err != nil {
				t.Fatalf("React: %v", err)
			}
			if got := srv.Reactions(); len(got) != 1 || got[0].ChannelID != "-100123" || got[0].MessageID != "m1" || got[0].Emoji != "👍" {
				t.Fatalf("reactions created = %+v", got)
			}

			srv.PushReaction(satoritest.Reaction{ChannelID: "-100123", GuildID: "-100123", MessageID: "b1", UserID: "bot", Emoji: "👀"})
			srv.PushReaction(satoritest.Reaction{ChannelID: "-100123", GuildID: "-100123", MessageID: "b1", UserID: "u1", UserName: "Ada", Emoji: "🔥"})
			srv.PushReaction(satoritest.Reaction{ChannelID: "-100123", GuildID: "-100123", MessageID: "b1", UserID: "u3", UserName: "Echo", UserIsBot: true, Emoji: "🔥", Removed: true})
			var got []state.Reaction
			for len(got) < 2 {
				select {
				case <-in.got:
					in.rmu.Lock()
					got = append([]state.Reaction(nil), in.reactions...)
					in.rmu.Unlock()
				case <-time.After(10 * time.Second):
					t.Fatalf("waiting for 2 reactions, got %+v", got)
				}
			}
			want := []state.Reaction{
				{ChannelID: "-100123", MessageID: "b1", SenderID: "u1", SenderName: "Ada", Emoji: "🔥"},
				{ChannelID: "-100123", MessageID: "b1", SenderID: "u3", SenderName: "Echo", FromBot: true, Emoji: "🔥", Removed: true},
			}
			for i := range want {
				g := got[i]
				g.Time = time.Time{}
				if g != want[i] {
					t.Errorf("reaction %d = %+v, want %+v (the bot's own is dropped)", i, g, want[i])
				}
			}
		})
	}
}
