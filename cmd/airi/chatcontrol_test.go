package main

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner/openai/openaitest"
)

// TestAdminPausesAGroupFromTheChat: "/airi pause" from an admin is
// answered by the runtime, the group gets no model call until the pause
// ends and is answered then; the same text from anyone else reaches the
// model as a message.
func TestAdminPausesAGroupFromTheChat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	tg := telegramtest.Start(telegramtest.Options{ReadAllGroupMessages: true})
	defer tg.Close()
	type call struct {
		at   time.Time
		text string
	}
	var (
		mu    sync.Mutex
		calls []call
	)
	ack := ackModel(telegramTexts(tg), nil)
	model := openaitest.NewServer(t, func(ctx context.Context, req openaitest.Request) openaitest.Reply {
		var all strings.Builder
		for _, m := range req.Messages {
			all.WriteString(m.Content)
		}
		mu.Lock()
		calls = append(calls, call{time.Now(), all.String()})
		mu.Unlock()
		return ack(ctx, req)
	})
	seen := func(s string) (time.Time, bool) {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range calls {
			if strings.Contains(c.text, s) {
				return c.at, true
			}
		}
		return time.Time{}, false
	}
	admin := telegramtest.User{ID: 501, FirstName: "Ann"}
	bob := telegramtest.User{ID: 502, FirstName: "Bob"}
	group := telegramtest.Chat{ID: -1001234567890, Type: telegramtest.Supergroup, Title: "Harbour"}
	env := botEnv(model.URL(), dbIn(t), "TELEGRAM_BOT_TOKEN="+tg.Token(), "TELEGRAM_API_BASE_URL="+tg.URL(), "AIRI_ADMINS=telegram:501", "AIRI_GROUP_MODE=all")
	bot := startBot(t, env)

	tg.Post(telegramtest.Incoming{Chat: group, From: admin, Text: "/airi pause 3s"})
	var confirmed time.Time
	waitUntil(t, "the pause is confirmed", bot, func() bool {
		for _, s := range tg.Sent() {
			if strings.Contains(s.Text, "paused until") {
				confirmed = time.Now()
				return true
			}
		}
		return false
	})
	tg.Post(telegramtest.Incoming{Chat: group, From: bob, Text: "anyone there? tok-1"})
	waitUntil(t, "the group is answered after the pause", bot, func() bool { return allAcked(ackCounts(telegramTexts(tg)()), 1) })
	at, ok := seen("tok-1")
	if !ok {
		t.Fatal("tok-1 never reached the model")
	}
	// The pause was set before the confirmation went out, for 3s.
	if at.Before(confirmed.Add(2 * time.Second)) {
		t.Errorf("the model was called %v after the confirmation, inside the 3s pause", at.Sub(confirmed))
	}
	if _, ok := seen("/airi pause"); ok {
		t.Error("the admin's command reached the model")
	}

	tg.Post(telegramtest.Incoming{Chat: group, From: bob, Text: "/airi pause 1m tok-2"})
	waitUntil(t, "the non-admin's command reaches the model", bot, func() bool { _, ok := seen("/airi pause 1m tok-2"); return ok })
	for _, s := range tg.Sent() {
		if strings.Count(s.Text, "paused until") > 0 && strings.Contains(s.Text, "1m") {
			t.Errorf("a non-admin paused the group: %q", s.Text)
		}
	}
	bot.stop(t)
}
