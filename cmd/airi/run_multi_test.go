package main

import (
	"testing"

	"github.com/airi-go/airi/adapters/satori/satoritest"
	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner/openai/openaitest"
)

// TestRunTwoAdapters runs Telegram and Satori together: every channel id
// the model sees is "platform:id" (for Satori the login's platform), and
// each reply goes out through the adapter its channel came from.
func TestRunTwoAdapters(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	tg := telegramtest.Start(telegramtest.Options{})
	defer tg.Close()
	sat := satoritest.NewServer(satoritest.Options{Logins: []satoritest.Login{{Platform: "qq", UserID: "10001", Name: "Juni"}}})
	defer sat.Close()
	sent := func() []string {
		var out []string
		for _, s := range tg.Sent() {
			out = append(out, s.Text)
		}
		for _, s := range sat.Sent() {
			out = append(out, s.Content)
		}
		return out
	}
	model := openaitest.NewServer(t, ackModel(sent, nil))
	bot := startBot(t, botEnv(model.URL(), dbIn(t),
		"TELEGRAM_BOT_TOKEN="+tg.Token(), "TELEGRAM_API_BASE_URL="+tg.URL(),
		"SATORI_WS_URL="+sat.WSURL(), "SATORI_API_BASE_URL="+sat.APIBaseURL()))
	waitUntil(t, "the bot identifies to Satori", bot, func() bool { return len(sat.Identifies()) > 0 })
	ann := telegramtest.User{ID: 501, FirstName: "Ann"}
	tg.Post(telegramtest.Incoming{Chat: telegramtest.PrivateChat(ann), From: ann, Text: "hi tok-1"})
	// A group message wakes the bot when it addresses it.
	sat.PushMessage(satoritest.Message{ChannelID: "g1", GuildID: "guild1", UserID: "u1", UserName: "bob", Content: `<at id="10001"/> hey tok-2`})
	waitUntil(t, "both platforms are answered", bot, func() bool { return allAcked(ackCounts(sent()), 2) })
	bot.stop(t)

	users := map[string]bool{}
	for _, r := range model.Requests() {
		users[r.User] = true
	}
	if !users["airi:telegram:501"] || !users["airi:qq:g1"] {
		t.Errorf("channel ids the model saw: %v, want airi:telegram:501 and airi:qq:g1", users)
	}
	if n := len(tg.Sent()); n != 1 {
		t.Errorf("telegram got %d messages, want 1", n)
	}
	if n := len(sat.Sent()); n != 1 || sat.Sent()[0].ChannelID != "g1" {
		t.Errorf("satori got %+v", sat.Sent())
	}
}
