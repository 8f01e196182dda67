package telegram

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/state"
)

// reactionInbox is a memInbox that takes reactions too.
type reactionInbox struct {
	*memInbox
	rmu       sync.Mutex
	reactions []state.Reaction
	got       chan struct{}
}

func (in *reactionInbox) DeliverReaction(_ context.Context, ch state.Channel, r state.Reaction) error {
	if err := r.Validate(); err != nil {
		return err
	}
	if r.ChannelID != ch.ID {
		return errors.New("reaction delivered with another channel")
	}
	in.rmu.Lock()
	in.reactions = append(in.reactions, r)
	in.rmu.Unlock()
	in.got <- struct{}{}
	return nil
}

func (in *reactionInbox) waitReactions(t *testing.T, n int) []state.Reaction {
	t.Helper()
	for {
		in.rmu.Lock()
		if len(in.reactions) >= n {
			out := append([]state.Reaction(nil), in.reactions...)
			in.rmu.Unlock()
			return out
		}
		in.rmu.Unlock()
		select {
		case <-in.got:
		case <-time.After(10 * time.Second):
			t.Fatalf("waiting for %d reactions", n)
		}
	}
}

func TestReact(t *testing.T) {
	srv := startServer(t)
	a, ctx := connected(t, srv)
	srv.Post(telegramtest.Incoming{Chat: sg, From: ann, Text: "we shipped it"})
	chat := "-1001234567890"

	if err := a.React(ctx, state.Reacting{ChannelID: chat, MessageID: "1", Emoji: "👍"}); err != nil {
		t.Fatalf("React 👍: %v", err)
	}
	got := srv.Reactions()
	if len(got) != 1 || got[0].ChatID != sg.ID || got[0].MessageID != 1 || got[0].Emoji != "👍" {
		t.Fatalf("reactions set = %+v, want one 👍 on message 1", got)
	}

	t.Run("refused emoji lists the allowed ones", func(t *testing.T) {
		srv.SetAvailableReactions(sg.ID, []string{"👍", "🔥"})
		err := a.React(ctx, state.Reacting{ChannelID: chat, MessageID: "1", Emoji: "🦖"})
		var refused *state.RefusedReactionError
		if !errors.As(err, &refused) {
			t.Fatalf("React 🦖 = %v, want a RefusedReactionError", err)
		}
		if strings.Join(refused.Allowed, " ") != "👍 🔥" || !strings.Contains(err.Error(), "🔥") {
			t.Errorf("refusal = %q, allowed %v; want 👍 🔥", err, refused.Allowed)
		}
		srv.SetAvailableReactions(sg.ID, nil)
		err = a.React(ctx, state.Reacting{ChannelID: chat, MessageID: "1", Emoji: "🦖"})
		if !errors.As(err, &refused) || len(refused.Allowed) != len(telegramtest.DefaultReactions) {
			t.Errorf("refusal in an open chat = %v; want every default reaction listed", err)
		}
	})
	t.Run("missing message", func(t *testing.T) {
		err := a.React(ctx, state.Reacting{ChannelID: chat, MessageID: "99", Emoji: "👍"})
		if err == nil || errors.Is(err, state.ErrOutcomeUnknown) || !strings.Contains(err.Error(), "not found") {
			t.Errorf("React on a missing message = %v, want a plain refusal", err)
		}
	})
	t.Run("connection dropped after the call", func(t *testing.T) {
		srv.Fail("setMessageReaction", telegramtest.Fault{Drop: true})
		err := a.React(ctx, state.Reacting{ChannelID: chat, MessageID: "1", Emoji: "🔥"})
		if !errors.Is(err, state.ErrOutcomeUnknown) {
			t.Errorf("React with the answer lost = %v, want ErrOutcomeUnknown", err)
		}
	})
	if n := len(srv.Reactions()); n != 2 {
		t.Errorf("reactions set = %d, want 2 (the first, and the one whose answer was lost)", n)
	}
}

func TestReceiveReactions(t *testing.T) {
	srv := startServer(t)
	a := newAdapter(t, srv, nil)
	inbox := &reactionInbox{memInbox: newInbox(), got: make(chan struct{}, 16)}
	run(t, a, inbox)

	srv.Post(telegramtest.Incoming{Chat: sg, From: ann, Text: "hi"})
	inbox.wait(t, 1)
	chat := "-1001234567890"
	if _, err := a.Send(ctxT(t), state.Outgoing{ChannelID: chat, Content: "hello"}); err != nil {
		t.Fatal(err)
	}
	// Not an administrator yet: Telegram sends nothing.
	if queued, err := srv.React(sg.ID, 2, ann, "👍"); err != nil || queued {
		t.Fatalf("React before admin = %v, %v; want not queued", queued, err)
	}
	srv.SetAdmin(sg.ID, true)
	if queued, err := srv.React(sg.ID, 2, ann, "🔥"); err != nil || !queued {
		t.Fatalf("React as admin = %v, %v; want queued (allowed_updates asked for message_reaction)", queued, err)
	}
	bot := telegramtest.User{ID: 900, FirstName: "Helper", IsBot: true}
	if _, err := srv.React(sg.ID, 2, bot); err != nil { // takes nothing off: no change
		t.Fatal(err)
	}
	if _, err := srv.React(sg.ID, 2, ann); err != nil { // Ann takes 🔥 off
		t.Fatal(err)
	}
	// Ann's 👍 was replaced by 🔥 (Telegram sends old and new lists),
	// then 🔥 taken off; the bot's empty change is none.
	got := inbox.waitReactions(t, 3)
	want := []state.Reaction{
		{ChannelID: chat, MessageID: "2", SenderID: "501", SenderName: "Ann Lee", Emoji: "🔥"},
		{ChannelID: chat, MessageID: "2", SenderID: "501", SenderName: "Ann Lee", Emoji: "👍", Removed: true},
		{ChannelID: chat, MessageID: "2", SenderID: "501", SenderName: "Ann Lee", Emoji: "🔥", Removed: true},
	}
	for i := range want {
		g := got[i]
		g.Time = time.Time{}
		if g != want[i] {
			t.Errorf("reaction %d = %+v, want %+v", i, g, want[i])
		}
	}
}
