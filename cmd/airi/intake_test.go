package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner/openai/openaitest"
)

// TestRunSkipsUnreadableTelegramUpdate sends the bot an update it cannot
// decode ("text": 12345) followed by a normal message: the normal one is
// answered, and the bad one is logged with its id and confirmed.
func TestRunSkipsUnreadableTelegramUpdate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	tg := telegramtest.Start(telegramtest.Options{})
	defer tg.Close()
	model := openaitest.NewServer(t, ackModel(telegramTexts(tg), nil))
	env := botEnv(model.URL(), dbIn(t), "TELEGRAM_BOT_TOKEN="+tg.Token(), "TELEGRAM_API_BASE_URL="+tg.URL())
	ann := telegramtest.User{ID: 501, FirstName: "Ann"}
	chat := map[string]any{"id": ann.ID, "type": "private", "first_name": "Ann"}
	bad := tg.PostRaw(map[string]any{"message": map[string]any{
		"message_id": 41, "date": 1700000000, "chat": chat, "from": map[string]any{"id": ann.ID, "is_bot": false, "first_name": "Ann"},
		"text": 12345,
	}})
	tg.Post(telegramtest.Incoming{Chat: telegramtest.PrivateChat(ann), From: ann, Text: "hello tok-1"})

	bot := startBot(t, env)
	waitUntil(t, "the message after the bad update is answered", bot, func() bool { return allAcked(ackCounts(telegramTexts(tg)()), 1) })
	bot.stop(t)
	var logged bool
	for _, l := range scanLines(bot.stderr.String()) {
		if strings.Contains(l, "unreadable update") && strings.Contains(l, `"update":`+strconv.Itoa(bad)) {
			logged = true
		}
	}
	if !logged {
		t.Errorf("no log line names the unreadable update %d; stderr:\n%s", bad, bot.stderr.String())
	}
	if pending := tg.Pending(); len(pending) != 0 {
		t.Errorf("updates left unconfirmed: %v", pending)
	}
}
