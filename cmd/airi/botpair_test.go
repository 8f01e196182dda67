package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner/openai/openaitest"
)

// answerOther is a model that answers every new message in chat by
// telling the other bot to answer; states gets each state message that
// carried new messages.
func answerOther(t *testing.T, chat int64, other string, states chan<- string) *openaitest.Server {
	return openaitest.NewServer(t, func(_ context.Context, req openaitest.Request) openaitest.Reply {
		if !strings.Contains(req.LastUser(), "New messages:") {
			return openaitest.Text(`{"action":"continue"}`)
		}
		select {
		case states <- req.LastUser():
		default:
		}
		return openaitest.Text(fmt.Sprintf(`{"action":"send_message","channelId":"%d","content":"@%s your turn, call %d"}`, chat, other, req.Call))
	})
}

// skippedBotPair reads a bot's count of wakes and messages refused for
// the pair budget off /metrics.
func skippedBotPair(t *testing.T, admin string) int {
	t.Helper()
	resp, err := http.Get(admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`airi_wakes_skipped_total\{reason="bot-pair"\} (\d+)`).FindSubmatch(body)
	if m == nil {
		return 0
	}
	var n int
	fmt.Sscan(string(m[1]), &n)
	return n
}

// quietFor waits until nothing is sent in room for d, at most limit, and
// returns how many messages the bots sent by then.
func quietFor(t *testing.T, room *telegramtest.Room, d, limit time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(limit)
	n, since := len(room.Sent()), time.Now()
	for time.Since(since) < d {
		if time.Now().After(deadline) {
			t.Fatalf("the bots are still talking after %v: %d messages", limit, len(room.Sent()))
		}
		time.Sleep(50 * time.Millisecond)
		if got := len(room.Sent()); got != n {
			n, since = got, time.Now()
		}
	}
	return n
}

// TestTwoBotProcessesStopWithinPairBudget runs two airi processes with
// their own tokens in one group that lets bots see each other, each with
// a model that answers every message by telling the other bot to answer.
// A person starts them off, addressing both: the bot with the longer
// debounce sees the other's answer to her in its request. They exchange
// at most AIRI_BOT_PAIR_RATE messages, then both stay silent (the pair
// budget recorded on /metrics) until a person writes again.
func TestTwoBotProcessesStopWithinPairBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	const rate = 6
	ada := telegramtest.Start(telegramtest.Options{Token: "111111111:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1", ReadAllGroupMessages: true,
		Bot: telegramtest.User{ID: 111, FirstName: "Ada", Username: "ada_bot"}})
	bea := telegramtest.Start(telegramtest.Options{Token: "222222222:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw2", ReadAllGroupMessages: true,
		Bot: telegramtest.User{ID: 222, FirstName: "Bea", Username: "bea_bot"}})
	defer ada.Close()
	defer bea.Close()
	group := telegramtest.Chat{ID: -1009000, Type: telegramtest.Supergroup, Title: "Two bots"}
	room := telegramtest.NewRoom(group, ada, bea)

	env := func(tg *telegramtest.Server, other, debounce string, states chan<- string) []string {
		return botEnv(answerOther(t, group.ID, other, states).URL(), dbIn(t),
			"TELEGRAM_BOT_TOKEN="+tg.Token(), "TELEGRAM_API_BASE_URL="+tg.URL(),
			"AIRI_IGNORE_BOTS=false", "AIRI_BOT_REPLIES=100", fmt.Sprintf("AIRI_BOT_PAIR_RATE=%d/1m", rate),
			"AIRI_DEBOUNCE="+debounce)
	}
	beaStates := make(chan string, 1) // her first request only
	bots := []*botProcess{
		startBot(t, env(ada, "bea_bot", "50ms", nil)),
		startBot(t, env(bea, "ada_bot", "3s", beaStates)),
	}
	admins := []string{adminAddr(t, bots[0]), adminAddr(t, bots[1])}

	ann := telegramtest.User{ID: 501, FirstName: "Ann", Username: "ann"}
	room.Post(telegramtest.Incoming{From: ann, Text: "@ada_bot @bea_bot talk to each other, forever"})
	waitUntil(t, "both bots answered", bots[0], func() bool {
		return len(ada.Sent()) > 0 && len(bea.Sent()) > 0
	})
	first := <-beaStates
	if want := `Already answered by other bots: Ada: "@bea_bot your turn, call 1"`; !strings.Contains(first, want) {
		t.Errorf("Bea's first request does not show Ada's answer (%s):\n%s", want, first)
	}
	talked := quietFor(t, room, 10*time.Second, 60*time.Second)
	// Both answer Ann; every message after the first is one between the
	// pair, counted by both bots alike, so at most rate of them pass.
	if talked > rate+2 {
		t.Errorf("the bots exchanged %d messages, want at most %d after answering Ann: %s", talked, rate+2, sentTexts(room.Sent()))
	}
	if talked < rate {
		t.Errorf("the bots exchanged %d messages before stopping, want the pair budget of %d used: %s", talked, rate, sentTexts(room.Sent()))
	}
	t.Logf("the bots sent %d messages in the room, then stopped: %s", talked, sentTexts(room.Sent()))
	if skippedBotPair(t, admins[0])+skippedBotPair(t, admins[1]) == 0 {
		t.Error("no bot recorded a bot-pair skip on /metrics")
	}

	// A person's message wakes them again within the quiet minute.
	room.Post(telegramtest.Incoming{From: ann, Text: "@ada_bot @bea_bot enough, you two. Say bye"})
	waitUntil(t, "a bot answered Ann again", bots[0], func() bool { return len(room.Sent()) > talked })
	after := quietFor(t, room, 10*time.Second, 60*time.Second)
	if after-talked > 2 {
		t.Errorf("after Ann's second message the bots sent %d more, want at most an answer each (quiet for the pair): %s", after-talked, sentTexts(room.Sent()[talked:]))
	}
	for _, b := range bots {
		b.stop(t)
	}
}

func sentTexts(sent []telegramtest.Sent) string {
	var b strings.Builder
	for _, s := range sent {
		fmt.Fprintf(&b, "\n  %d: %s", s.MessageID, s.Text)
	}
	return b.String()
}
