package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/runtime"
)

// TestRunForumTopics runs the binary against a forum supergroup with the
// topics 5 and 9: the mention in topic 9 is answered in topic 9 only,
// with nothing of topic 5 in its requests, and `airi status` lists each
// topic as a channel of its own.
func TestRunForumTopics(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	tg := telegramtest.Start(telegramtest.Options{})
	defer tg.Close()
	model := openaitest.NewServer(t, ackModel(telegramTexts(tg), nil))
	db := dbIn(t)
	env := botEnv(model.URL(), db, "TELEGRAM_BOT_TOKEN="+tg.Token(), "TELEGRAM_API_BASE_URL="+tg.URL())
	ann := telegramtest.User{ID: 501, FirstName: "Ann"}
	forum := telegramtest.Chat{ID: -1003000, Type: telegramtest.Supergroup, Title: "Club", IsForum: true}
	chat := strconv.FormatInt(forum.ID, 10)
	for range 4 {
		tg.Post(telegramtest.Incoming{Chat: forum, From: ann, Text: "hello"})
	}
	if five := tg.CreateTopic(forum, ann, "Books"); five != 5 {
		t.Fatalf("topic %d, want 5", five)
	}
	for range 3 {
		tg.Post(telegramtest.Incoming{Chat: forum, From: ann, Text: "hello"})
	}
	if nine := tg.CreateTopic(forum, ann, "Games"); nine != 9 {
		t.Fatalf("topic %d, want 9", nine)
	}
	at := "@" + tg.Bot().Username
	tg.Post(telegramtest.Incoming{Chat: forum, From: ann, Text: at + " books tok-1", Thread: 5})

	bot := startBot(t, env)
	waitUntil(t, "topic 5 is answered", bot, func() bool { return allAcked(ackCounts(telegramTexts(tg)()), 1) })
	tg.Post(telegramtest.Incoming{Chat: forum, From: ann, Text: at + " games tok-2", Thread: 9})
	waitUntil(t, "topic 9 is answered", bot, func() bool { return allAcked(ackCounts(telegramTexts(tg)()), 2) })
	bot.stop(t)

	for _, s := range tg.Sent() {
		switch {
		case strings.Contains(s.Text, "1") && s.Thread != 5, strings.Contains(s.Text, "2") && s.Thread != 9:
			t.Errorf("answer %q went to topic %d", s.Text, s.Thread)
		}
	}
	for _, r := range model.Requests() {
		if r.User == "airi:"+chat+"/9" && strings.Contains(strings.Join(texts(r), "\n"), "tok-1") {
			t.Errorf("a request of topic 9 shows topic 5's message:\n%s", strings.Join(texts(r), "\n"))
		}
	}

	code, out, errOut := runCommand(t, map[string]string{"DB_PATH": db}, "status", "--json")
	if code != exitOK {
		t.Fatalf("status: %d %s", code, errOut)
	}
	var got struct {
		Channels []runtime.ChannelStatus `json:"channels"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, c := range got.Channels {
		rows[c.ID] = true
	}
	for _, id := range []string{chat + "/5", chat + "/9"} {
		if !rows[id] {
			t.Errorf("airi status has no row for topic %s: %s", id, out)
		}
	}
}

func texts(r openaitest.Request) []string {
	out := make([]string, len(r.Messages))
	for i, m := range r.Messages {
		out[i] = m.Content
	}
	return out
}
