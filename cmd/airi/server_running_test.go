package main

import (
	"strings"
	"testing"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner/openai/openaitest"
)

// TestRunningIsLoggedOnceConnected checks that "airi is running" follows
// the adapter's connection, and that a token the Bot API refuses stops
// the bot without it.
func TestRunningIsLoggedOnceConnected(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	tg := telegramtest.Start(telegramtest.Options{})
	defer tg.Close()
	model := openaitest.NewServer(t, ackModel(telegramTexts(tg), nil))

	t.Run("connected", func(t *testing.T) {
		bot := startBot(t, botEnv(model.URL(), dbIn(t), "TELEGRAM_BOT_TOKEN="+tg.Token(), "TELEGRAM_API_BASE_URL="+tg.URL()))
		waitUntil(t, "the bot runs", bot, func() bool { return strings.Contains(bot.stderr.String(), "airi is running") })
		log := bot.stderr.String()
		if c, r := strings.Index(log, "telegram bot connected"), strings.Index(log, "airi is running"); c < 0 || c > r {
			t.Errorf("running logged before the adapter connected:\n%s", log)
		}
		bot.stop(t)
	})
	t.Run("token refused", func(t *testing.T) {
		code, _, stderr := runOnce(t, botEnv(model.URL(), dbIn(t), "TELEGRAM_BOT_TOKEN="+wrongToken, "TELEGRAM_API_BASE_URL="+tg.URL()), "", nil, "run")
		if code != exitFailure || !strings.Contains(stderr, "TELEGRAM_BOT_TOKEN") {
			t.Errorf("exit %d, want %d naming the token:\n%s", code, exitFailure, stderr)
		}
		if strings.Contains(stderr, "airi is running") {
			t.Errorf("running logged although the token was refused:\n%s", stderr)
		}
	})
}
