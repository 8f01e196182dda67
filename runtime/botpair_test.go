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

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/state"
)

// TestTwoBotsStopWithinPairBudget puts ours in a group with another bot
// told to answer it, and a model told to answer the other bot: every
// call of ours makes the other bot post again while ours decides, so
// one wake would go on call after call on the other bot's messages. The
// pair budget (AIRI_BOT_PAIR_RATE=6/1m, the reply cap out of the way)
// stops them: ours answers the human and then the other bot until the
// pair has exchanged six messages, then stays silent for the bot, with
// the reason recorded, until a human writes.
func TestTwoBotsStopWithinPairBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg := telegramtest.NewServer(telegramtest.Options{ReadAllGroupMessages: true})
		chat := fmt.Sprint(busyGroup.ID)
		echo := telegramtest.User{ID: 909, IsBot: true, FirstName: "Echo", Username: "echo_bot"}
		mention := "@" + tg.Bot().Username
		var (
			mu    sync.Mutex
			calls int
		)
		model := func(_ context.Context, req openaitest.Request) openaitest.Reply {
			mu.Lock()
			calls++
			n := calls
			mu.Unlock()
			if !strings.Contains(req.LastUser(), "New messages:") {
				return openaitest.Reply{Content: `{"action":"continue"}`}
			}
			// The other bot answers ours while ours decides.
			tg.Post(telegramtest.Incoming{Chat: busyGroup, From: echo, Text: fmt.Sprintf("%s your turn %d", mention, n)})
			return openaitest.Reply{Content: fmt.Sprintf(`{"action":"send_message","channelId":"%s","content":"no, your turn %d"}`, chat, n)}
		}
		b := startGroupBot(t, tg, openaitest.NewHandler(model), filepath.Join(t.TempDir(), "airi.db"), func(c *runtime.Config) {
			c.Attention.Default.IgnoreBots, c.Attention.Default.BotReplies = false, 100
			c.Attention.Default.BotPairRate = attention.Rate{N: 6, Per: time.Minute}
			c.MaxIterations = 50
		})
		defer b.stop(t)
		ada := telegramtest.User{ID: 701, FirstName: "Ada"}
		tg.Post(telegramtest.Incoming{Chat: busyGroup, From: ada, Text: mention + " and Echo: talk to each other"})
		time.Sleep(50 * time.Second)
		synctest.Wait()

		sent := len(tg.Sent())
		// The human's answer, then replies to the other bot while the
		// pair is within six messages: theirs and ours count alike.
		if sent < 2 || sent > 4 {
			t.Errorf("ours sent %d messages, want the human's answer and at most 3 to the other bot", sent)
		}
		_, skipped := b.counts()
		if skipped["bot-pair"] == 0 {
			t.Errorf("skipped %v, want bot-pair recorded", skipped)
		}
		skips, err := b.rt.Store().SkippedWakes(context.Background(), state.TickFilter{ChannelID: chat})
		if err != nil {
			t.Fatal(err)
		}
		decided := decisions(storedEvents(t, b))
		if decided["bot-pair"] == 0 && !hasReason(skips, "bot-pair") {
			t.Errorf("no message decided and no call refused bot-pair: decisions %v, skips %+v", decided, skips)
		}

		// Within the quiet minute the other bot wakes nothing.
		tg.Post(telegramtest.Incoming{Chat: busyGroup, From: echo, Text: mention + " still there?"})
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if got := len(tg.Sent()); got != sent {
			t.Errorf("the other bot woke ours during the quiet: %d sent, want %d", got, sent)
		}
		// A human does.
		tg.Post(telegramtest.Incoming{Chat: busyGroup, From: ada, Text: mention + " enough, you two"})
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if got := len(tg.Sent()); got <= sent {
			t.Errorf("a human's message during the quiet got no answer: %d sent", got)
		}
	})
}

func hasReason(skips []state.SkippedWake, reason string) bool {
	for _, s := range skips {
		if s.Reason == reason {
			return true
		}
	}
	return false
}
