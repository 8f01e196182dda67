package runtime_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// scriptModel answers each request with the next of its answers (then
// continue) and keeps every request's state message.
type scriptModel struct {
	mu      sync.Mutex
	answers []string
	states  []string
}

func (m *scriptModel) answer(_ context.Context, req openaitest.Request) openaitest.Reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.states = append(m.states, req.LastUser())
	if len(m.answers) == 0 {
		return openaitest.Reply{Content: `{"action":"continue"}`}
	}
	a := m.answers[0]
	m.answers = m.answers[1:]
	return openaitest.Reply{Content: a}
}

func (m *scriptModel) calls() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.states...)
}

// TestReactionsBothWays: the model's react puts exactly one reaction on
// the message through setMessageReaction; a person's reaction to the
// bot's message makes no model call by itself and is in the state
// message of the next request, once.
func TestReactionsBothWays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg := telegramtest.NewServer(telegramtest.Options{ReadAllGroupMessages: true})
		chat := fmt.Sprint(busyGroup.ID)
		m := &scriptModel{answers: []string{
			fmt.Sprintf(`{"action":"react","channelId":"%s","messageId":"1","emoji":"👍"}`, chat),
			fmt.Sprintf(`{"action":"send_message","channelId":"%s","content":"the pier at half past one"}`, chat),
		}}
		b := startGroupBot(t, tg, openaitest.NewHandler(m.answer), filepath.Join(t.TempDir(), "airi.db"), nil)
		defer b.stop(t)
		ada := telegramtest.User{ID: 701, FirstName: "Ada"}
		mention := "@" + tg.Bot().Username

		tg.Post(telegramtest.Incoming{Chat: busyGroup, From: ada, Text: mention + " we shipped it"})
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if got := tg.Reactions(); len(got) != 1 || got[0].MessageID != 1 || got[0].Emoji != "👍" {
			t.Fatalf("reactions set = %+v, want one 👍 on message 1", got)
		}
		if n := len(tg.Sent()); n != 0 {
			t.Errorf("%d messages sent beside the reaction, want none", n)
		}

		tg.Post(telegramtest.Incoming{Chat: busyGroup, From: ada, Text: mention + " where do we meet?"})
		time.Sleep(10 * time.Second)
		synctest.Wait()
		sent := tg.Sent()
		if len(sent) != 1 {
			t.Fatalf("sent %d messages, want the answer", len(sent))
		}
		calls := len(m.calls())

		tg.SetAdmin(busyGroup.ID, true)
		if queued, err := tg.React(busyGroup.ID, sent[0].MessageID, ada, "🔥"); err != nil || !queued {
			t.Fatalf("React = %v, %v", queued, err)
		}
		bo := telegramtest.User{ID: 702, FirstName: "Bo"}
		if _, err := tg.React(busyGroup.ID, 1, bo, "👍"); err != nil { // Ada's message, not the bot's
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := len(m.calls()); n != calls {
			t.Fatalf("a reaction made %d model calls, want none", n-calls)
		}

		tg.Post(telegramtest.Incoming{Chat: busyGroup, From: ada, Text: mention + " ok"})
		time.Sleep(10 * time.Second)
		synctest.Wait()
		states := m.calls()
		if len(states) <= calls {
			t.Fatal("no request after the next message")
		}
		want := fmt.Sprintf("Ada reacted 🔥 to your message %d", sent[0].MessageID)
		if next := states[calls]; !strings.Contains(next, want) || strings.Contains(next, "Bo reacted") {
			t.Errorf("next state message lacks %q (or shows Bo's reaction to Ada):\n%s", want, next)
		}
		for _, later := range states[calls+1:] {
			if strings.Contains(later, "reacted") {
				t.Errorf("a reaction shown twice:\n%s", later)
			}
		}
		if body := b.metricsText(t); !strings.Contains(body, `airi_reactions_total{outcome="received"} 1`) {
			t.Errorf("metrics lack the received reaction:\n%s", body)
		}
	})
}

// TestReactionAfterCrash: a reaction whose outbox entry is still pending
// when the bot starts (the process died right after calling
// setMessageReaction) is reported to the model and never set again.
func TestReactionAfterCrash(t *testing.T) {
	db := filepath.Join(t.TempDir(), "airi.db")
	chat := fmt.Sprint(busyGroup.ID)
	func() {
		st, err := sqlite.Open(context.Background(), db, zaptest.NewLogger(t))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if err := st.UpsertChannel(context.Background(), state.Channel{ID: chat, Platform: "telegram", NativeID: chat, Group: true, Title: "Night Owls"}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.AddOutbox(context.Background(), state.OutboxEntry{ChannelID: chat, Kind: state.OutboxReaction, Content: "👍", ReplyTo: "1"}); err != nil {
			t.Fatal(err)
		}
	}()
	synctest.Test(t, func(t *testing.T) {
		tg := telegramtest.NewServer(telegramtest.Options{ReadAllGroupMessages: true})
		m := &scriptModel{}
		b := startGroupBot(t, tg, openaitest.NewHandler(m.answer), db, nil)
		defer b.stop(t)
		tg.Post(telegramtest.Incoming{Chat: busyGroup, From: telegramtest.User{ID: 701, FirstName: "Ada"}, Text: "@" + tg.Bot().Username + " did you see it?"})
		time.Sleep(10 * time.Second)
		synctest.Wait()
		states := m.calls()
		if len(states) == 0 || !strings.Contains(states[0], `before a restart you tried to react 👍 to message "1"`) {
			t.Errorf("the first request does not report the reaction of unknown outcome:\n%v", states)
		}
		if got := tg.Reactions(); len(got) != 0 {
			t.Errorf("reactions set after the restart: %+v, want none", got)
		}
		pending, err := b.rt.Store().PendingOutbox(context.Background())
		if err != nil || len(pending) != 0 {
			t.Errorf("pending outbox after the restart: %+v, %v", pending, err)
		}
	})
}
