package main

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner/openai/openaitest"
)

func telegramTexts(tg *telegramtest.Server) func() []string {
	return func() []string {
		var out []string
		for _, s := range tg.Sent() {
			out = append(out, s.Text)
		}
		return out
	}
}

// TestRunTelegram runs the bot against a Bot API server with Telegram's
// update and offset semantics: it replies in a private chat and in a
// supergroup, is killed with SIGKILL during new traffic, restarts, and in
// the end every message reached the model and none was answered twice.
func TestRunTelegram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	tg := telegramtest.Start(telegramtest.Options{ReadAllGroupMessages: true})
	defer tg.Close()
	calls := make(chan int, 10000)
	var hold atomic.Bool
	ack := ackModel(telegramTexts(tg), calls)
	model := openaitest.NewServer(t, func(ctx context.Context, req openaitest.Request) openaitest.Reply {
		if hold.Load() {
			// The call stays in flight until the bot is killed.
			calls <- req.Call
			return openaitest.Hang()
		}
		return ack(ctx, req)
	})
	db := dbIn(t)
	env := botEnv(model.URL(), db, "TELEGRAM_BOT_TOKEN="+tg.Token(), "TELEGRAM_API_BASE_URL="+tg.URL())

	ann := telegramtest.User{ID: 501, FirstName: "Ann", Username: "ann"}
	bob := telegramtest.User{ID: 502, FirstName: "Bob"}
	group := telegramtest.Chat{ID: -1001234567890, Type: telegramtest.Supergroup, Title: "Harbour"}
	post := func(n int) {
		if n%2 == 1 {
			tg.Post(telegramtest.Incoming{Chat: telegramtest.PrivateChat(ann), From: ann, Text: fmt.Sprintf("hello tok-%d", n)})
		} else {
			tg.Post(telegramtest.Incoming{Chat: group, From: bob, Text: fmt.Sprintf("@%s what about tok-%d?", tg.Bot().Username, n)})
		}
	}

	bot := startBot(t, env)
	post(1)
	post(2)
	waitUntil(t, "both chats are answered", bot, func() bool { return allAcked(ackCounts(telegramTexts(tg)()), 2) })
	for _, s := range tg.Sent() {
		if s.Text == "" {
			t.Errorf("empty message sent: %+v", s)
		}
	}
	chats := map[int64]bool{}
	for _, s := range tg.Sent() {
		chats[s.ChatID] = true
	}
	if !chats[ann.ID] || !chats[group.ID] {
		t.Errorf("replies went to %v, want the private chat and the supergroup", chats)
	}

	// New traffic; the kill lands while the model is busy with it.
	hold.Store(true)
	for len(calls) > 0 {
		<-calls
	}
	for n := 3; n <= 8; n++ {
		post(n)
	}
	select {
	case <-calls:
	case <-time.After(30 * time.Second):
		t.Fatalf("the model was not called for the new traffic; stderr:\n%s", bot.stderr.String())
	}
	bot.kill()
	if counts := ackCounts(telegramTexts(tg)()); counts["3"]+counts["8"] != 0 {
		t.Fatalf("new traffic was answered before the kill: %v", counts)
	}
	hold.Store(false)

	bot = startBot(t, env)
	waitUntil(t, "every message is answered after the restart", bot, func() bool { return allAcked(ackCounts(telegramTexts(tg)()), 8) })
	bot.stop(t)

	for k, n := range ackCounts(telegramTexts(tg)()) {
		if n != 1 {
			t.Errorf("tok-%s answered %d times", k, n)
		}
	}
	var seen strings.Builder
	for _, r := range model.Requests() {
		for _, m := range r.Messages {
			seen.WriteString(m.Content)
		}
	}
	for n := 1; n <= 8; n++ {
		if !strings.Contains(seen.String(), fmt.Sprintf("tok-%d", n)) {
			t.Errorf("tok-%d never reached the model", n)
		}
	}
	if _, err := tg.WaitSent(context.Background(), 0); err != nil {
		t.Error(err)
	}
}
