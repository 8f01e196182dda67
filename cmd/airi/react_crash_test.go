package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner/openai/openaitest"
)

// TestReactionSurvivesKill: the model answers react; the bot is
// SIGKILLed while its setMessageReaction call, carried out by the Bot
// API, is still unanswered, and started again at once on the same
// database. The message carries exactly one reaction, and the restarted
// bot tells the model the reaction's outcome is unknown instead of
// setting it again.
func TestReactionSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	tg := telegramtest.Start(telegramtest.Options{})
	defer tg.Close()
	idRe := regexp.MustCompile(`- id (\d+) [^\n]*"react to this`)
	var (
		mu     sync.Mutex
		states []string
	)
	model := openaitest.NewServer(t, func(_ context.Context, req openaitest.Request) openaitest.Reply {
		state := req.LastUser()
		mu.Lock()
		states = append(states, state)
		mu.Unlock()
		if m := idRe.FindStringSubmatch(state); m != nil {
			channel := strings.TrimPrefix(req.User, "airi:")
			return openaitest.Text(fmt.Sprintf(`{"action":"react","channelId":%q,"messageId":%q,"emoji":"👍"}`, channel, m[1]))
		}
		return openaitest.Text(`{"action":"continue"}`)
	})
	env := botEnv(model.URL(), dbIn(t), "TELEGRAM_BOT_TOKEN="+tg.Token(), "TELEGRAM_API_BASE_URL="+tg.URL())
	tg.Fail("setMessageReaction", telegramtest.Fault{Hold: true})

	first := startBot(t, env)
	ann := telegramtest.User{ID: 501, FirstName: "Ann", Username: "ann"}
	chat := telegramtest.PrivateChat(ann)
	msg := tg.Post(telegramtest.Incoming{Chat: chat, From: ann, Text: "react to this, tok-r1"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := tg.WaitCalls(ctx, "setMessageReaction", 1); err != nil {
		t.Fatalf("no setMessageReaction call: %v; stderr:\n%s", err, first.stderr.String())
	}
	first.kill()

	second := startBot(t, env)
	tg.Post(telegramtest.Incoming{Chat: chat, From: ann, Text: "still there? tok-r2"})
	waitUntil(t, "the restarted bot reads the next message", second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(states) > 0 && strings.Contains(states[len(states)-1], "tok-r2")
	})
	settle(t, second, 2*time.Second)
	second.stop(t)

	if got := tg.Reactions(); len(got) != 1 || got[0].MessageID != msg.MessageID || got[0].Emoji != "👍" {
		t.Errorf("reactions %+v, want one 👍 on message %d", got, msg.MessageID)
	}
	if n := tg.Calls("setMessageReaction"); n != 1 {
		t.Errorf("setMessageReaction called %d times, want once", n)
	}
	mu.Lock()
	defer mu.Unlock()
	reported := false
	for _, s := range states {
		reported = reported || strings.Contains(s, "before a restart you tried to react 👍")
	}
	if !reported {
		t.Errorf("no request after the restart reports the reaction of unknown outcome:\n%s", strings.Join(states, "\n---\n"))
	}
}
