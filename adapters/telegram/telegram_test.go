package telegram

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/state"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestReceiveAndReplyPrivate(t *testing.T) {
	srv := startServer(t)
	a := newAdapter(t, srv, nil)
	inbox := newInbox()
	run(t, a, inbox)

	posted := srv.Post(telegramtest.Incoming{From: ann, Text: "hello there"})
	got := inbox.wait(t, 1)[0]
	want := state.Message{
		ChannelID: "501", PlatformID: "1", SenderID: "telegram:501", SenderName: "Ann Lee",
		Content: "hello there", Time: time.Unix(posted.Date, 0).UTC(),
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("delivered\n%+v\nwant\n%+v", got, want)
	}
	ch := inbox.channel("501")
	if ch.Platform != "telegram" || ch.NativeID != "501" || ch.Group || ch.Title != "Ann Lee" {
		t.Fatalf("channel = %+v", ch)
	}
	if id, name := a.Me(); id != srv.Bot().ID || name != "airi_test_bot" {
		t.Fatalf("Me() = %d %q", id, name)
	}

	id, err := a.Send(ctxT(t), state.Outgoing{ChannelID: "501", Content: "hi **Ann**", ReplyTo: "1"})
	if err != nil {
		t.Fatal(err)
	}
	sent := srv.Sent()
	if len(sent) != 1 || id != strconv.Itoa(sent[0].MessageID) || id != "2" {
		t.Fatalf("send returned %q, server has %+v", id, sent)
	}
	if s := sent[0]; s.ChatID != 501 || s.ReplyTo != 1 || s.Text != "hi Ann" || s.Raw != "hi <b>Ann</b>" || s.ParseMode != "HTML" {
		t.Fatalf("sent %+v", s)
	}
}

func TestReceiveAndReplySupergroup(t *testing.T) {
	srv := startServer(t)
	a := newAdapter(t, srv, nil)
	inbox := newInbox()
	run(t, a, inbox)

	srv.Post(telegramtest.Incoming{Chat: sg, From: ann, Text: "anyone awake?"})
	srv.Post(telegramtest.Incoming{Chat: sg, From: bob, Text: "me", ReplyTo: 1})
	msgs := inbox.wait(t, 2)
	if msgs[0].ChannelID != "-1001234567890" || msgs[1].ReplyTo != "1" || msgs[1].SenderName != "Bob" || msgs[1].PlatformID != "2" {
		t.Fatalf("delivered %+v", msgs)
	}
	ch := inbox.channel("-1001234567890")
	if !ch.Group || ch.Title != "Night Owls" || strings.Join(ch.Members, ",") != "Ann Lee,Bob" {
		t.Fatalf("channel = %+v", ch)
	}
	if _, err := a.Send(ctxT(t), state.Outgoing{ChannelID: "-1001234567890", Content: "I am, `always`"}); err != nil {
		t.Fatal(err)
	}
	sent := srv.Sent()
	if len(sent) != 1 || sent[0].ChatID != sg.ID || sent[0].Raw != "I am, <code>always</code>" {
		t.Fatalf("sent %+v", sent)
	}
}

func TestMentionDetection(t *testing.T) {
	srv := startServer(t)
	a := newAdapter(t, srv, nil)
	inbox := newInbox()
	run(t, a, inbox)

	// A message of the bot to reply to.
	srv.Post(telegramtest.Incoming{Chat: grp, From: ann, Text: "start"})
	inbox.wait(t, 1)
	botMsg, err := a.Send(ctxT(t), state.Outgoing{ChannelID: "-4242", Content: "hello group"})
	if err != nil {
		t.Fatal(err)
	}
	botMsgID, _ := strconv.Atoi(botMsg)

	tests := []struct {
		name string
		in   telegramtest.Incoming
		want bool
		// reply: a reply to the bot's own message; fromBot: sent by another bot.
		reply, fromBot bool
	}{
		{"plain text", telegramtest.Incoming{Text: "nice weather"}, false, false, false},
		{"username entity", telegramtest.Incoming{Text: "hey @airi_test_bot how are you"}, true, false, false},
		{"username other case", telegramtest.Incoming{Text: "@Airi_Test_Bot!"}, true, false, false},
		{"other user", telegramtest.Incoming{Text: "@airi_test_bot_fan look"}, false, false, false},
		{"reply to the bot", telegramtest.Incoming{Text: "thanks", ReplyTo: botMsgID}, true, true, false},
		{"another bot", telegramtest.Incoming{From: telegramtest.User{ID: 909, IsBot: true, FirstName: "Echo", Username: "echo_bot"}, Text: "@airi_test_bot ping"}, true, false, true},
		{"reply to a person", telegramtest.Incoming{Text: "right", ReplyTo: 1}, false, false, false},
		{"bare command", telegramtest.Incoming{Text: "/help"}, true, false, false},
		{"command for us", telegramtest.Incoming{Text: "/help@airi_test_bot"}, true, false, false},
		{"command for another bot", telegramtest.Incoming{Text: "/help@other_bot"}, false, false, false},
		{"caption mention", telegramtest.Incoming{Media: "photo", Caption: "look @airi_test_bot"}, true, false, false},
		{"text mention", telegramtest.Incoming{Text: "Airi, hi", Entities: []telegramtest.Entity{
			{Type: "text_mention", Offset: 0, Length: 4, User: &telegramtest.User{ID: srv.Bot().ID, IsBot: true, FirstName: "Airi"}}}}, true, false, false},
		{"mention after emoji", telegramtest.Incoming{Text: "🙂 @airi_test_bot"}, true, false, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Chat = grp
			if tt.in.From.ID == 0 {
				tt.in.From = bob
			}
			srv.Post(tt.in)
			msgs := inbox.wait(t, i+2)
			if got := msgs[i+1].Mentioned; got != tt.want {
				t.Fatalf("Mentioned = %v, want %v (content %q)", got, tt.want, msgs[i+1].Content)
			}
			if m := msgs[i+1]; m.ReplyToSelf != tt.reply || m.FromBot != tt.fromBot {
				t.Fatalf("ReplyToSelf = %v, FromBot = %v; want %v, %v", m.ReplyToSelf, m.FromBot, tt.reply, tt.fromBot)
			}
		})
	}
}

func TestEditsAreDelivered(t *testing.T) {
	srv := startServer(t)
	a := newAdapter(t, srv, nil)
	inbox := newInbox()
	run(t, a, inbox)

	m := srv.Post(telegramtest.Incoming{From: ann, Text: "helo"})
	if err := srv.Edit(m.Chat.ID, m.MessageID, "hello @"+srv.Bot().Username); err != nil {
		t.Fatal(err)
	}
	srv.Post(telegramtest.Incoming{From: ann, Text: "after"})
	msgs := inbox.wait(t, 3)
	if err := srv.WaitConfirmed(ctxT(t), 3); err != nil {
		t.Fatal(err)
	}
	edit := msgs[1]
	if msgs[0].Content != "helo" || msgs[0].Edited || msgs[2].Content != "after" {
		t.Fatalf("delivered %+v", msgs)
	}
	if !edit.Edited || edit.PlatformID != msgs[0].PlatformID || edit.Content != "hello @"+srv.Bot().Username || !edit.Mentioned {
		t.Fatalf("edit delivered as %+v", edit)
	}
}

func TestLongTextIsSplit(t *testing.T) {
	srv := startServer(t)
	a := newAdapter(t, srv, nil)
	srv.Post(telegramtest.Incoming{Chat: sg, From: ann, Text: "x"})

	var b strings.Builder
	for i := 0; b.Len() < 10000; i++ {
		fmt.Fprintf(&b, "Paragraph %d has **some bold words** & a <tag> in it. Then another sentence follows here.\n\n", i)
	}
	id, err := a.Send(ctxT(t), state.Outgoing{ChannelID: strconv.FormatInt(sg.ID, 10), Content: b.String(), ReplyTo: "1"})
	if err != nil {
		t.Fatal(err)
	}
	sent := srv.Sent()
	if len(sent) < 3 {
		t.Fatalf("sent %d parts, want at least 3", len(sent))
	}
	if id != strconv.Itoa(sent[0].MessageID) || sent[0].ReplyTo != 1 || sent[1].ReplyTo != 0 {
		t.Fatalf("id %q, parts %+v", id, sent[:2])
	}
	var joined strings.Builder
	for _, s := range sent {
		if utf16Len(s.Text) > MaxMessageUTF16 {
			t.Fatalf("part of %d UTF-16 units", utf16Len(s.Text))
		}
		if !strings.HasPrefix(s.Text, "Paragraph ") {
			t.Fatalf("part does not start at a paragraph: %.40q", s.Text)
		}
		joined.WriteString(s.Text)
	}
	if want := parseMarkdown(b.String()).Plain(); joined.String() != want {
		t.Fatal("the parts do not add up to the whole text")
	}
}

func TestRateLimitThenSuccess(t *testing.T) {
	srv := startServer(t)
	a := newAdapter(t, srv, nil)
	var waits []time.Duration
	a.wait = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}
	srv.Post(telegramtest.Incoming{From: ann, Text: "x"})
	srv.RateLimit("sendMessage", 7)

	id, err := a.Send(ctxT(t), state.Outgoing{ChannelID: "501", Content: "after the flood"})
	if err != nil {
		t.Fatal(err)
	}
	if len(waits) != 1 || waits[0] != 7*time.Second {
		t.Fatalf("waited %v, want [7s]", waits)
	}
	if sent := srv.Sent(); len(sent) != 1 || id != "2" || srv.Calls("sendMessage") != 2 {
		t.Fatalf("sent %+v after %d calls, id %q", sent, srv.Calls("sendMessage"), id)
	}
}

func TestRateLimitTooLongIsNotSent(t *testing.T) {
	srv := startServer(t)
	a := newAdapter(t, srv, nil)
	a.wait = func(context.Context, time.Duration) error { t.Error("waited"); return nil }
	srv.Post(telegramtest.Incoming{From: ann, Text: "x"})
	srv.RateLimit("sendMessage", 3600)

	_, err := a.Send(ctxT(t), state.Outgoing{ChannelID: "501", Content: "hi"})
	if err == nil || errors.Is(err, state.ErrOutcomeUnknown) || !strings.Contains(err.Error(), "rate limited") {
		t.Fatalf("err = %v, want a plain rate-limit failure", err)
	}
}

func TestRejectedEntitiesFallBackToPlainText(t *testing.T) {
	srv := startServer(t)
	a := newAdapter(t, srv, nil)
	srv.Post(telegramtest.Incoming{From: ann, Text: "x"})
	srv.RejectEntities(1)

	if _, err := a.Send(ctxT(t), state.Outgoing{ChannelID: "501", Content: "**bold** and <angle> & co"}); err != nil {
		t.Fatal(err)
	}
	sent := srv.Sent()
	if len(sent) != 1 || sent[0].ParseMode != "" || sent[0].Text != "bold and <angle> & co" {
		t.Fatalf("sent %+v", sent)
	}
}

func TestSendOutcomeUnknownWhenConnectionDrops(t *testing.T) {
	srv := startServer(t)
	a := newAdapter(t, srv, nil)
	srv.Post(telegramtest.Incoming{From: ann, Text: "x"})
	srv.Fail("sendMessage", telegramtest.Fault{Drop: true})

	_, err := a.Send(ctxT(t), state.Outgoing{ChannelID: "501", Content: "did it arrive?"})
	if !errors.Is(err, state.ErrOutcomeUnknown) {
		t.Fatalf("err = %v, want ErrOutcomeUnknown", err)
	}
	if strings.Contains(err.Error(), srv.Token()) {
		t.Fatalf("error shows the token: %v", err)
	}
	if n := len(srv.Sent()); n != 1 || srv.Calls("sendMessage") != 1 {
		t.Fatalf("server sent %d after %d calls; want exactly one, never retried", n, srv.Calls("sendMessage"))
	}
}

func TestSendFailures(t *testing.T) {
	srv := startServer(t)
	a := newAdapter(t, srv, nil)
	tests := []struct {
		name, channel, want string
	}{
		{"unknown chat", "999", "chat not found"},
		{"not an id", "general", "not a Telegram chat id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := a.Send(ctxT(t), state.Outgoing{ChannelID: tt.channel, Content: "hi"})
			if err == nil || errors.Is(err, state.ErrOutcomeUnknown) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want a failed send mentioning %q", err, tt.want)
			}
		})
	}
	// A server that cannot be reached never got the message.
	srv.Close()
	a = newAdapter(t, srv, nil) // no kept-alive connection to the old server
	_, err := a.Send(ctxT(t), state.Outgoing{ChannelID: "501", Content: "hi"})
	if err == nil || errors.Is(err, state.ErrOutcomeUnknown) || strings.Contains(err.Error(), srv.Token()) {
		t.Fatalf("err = %v, want a plain failure without the token", err)
	}
}

func TestTyping(t *testing.T) {
	srv := startServer(t)
	a := newAdapter(t, srv, nil)
	srv.Post(telegramtest.Incoming{Chat: sg, From: ann, Text: "x"})
	if err := a.Typing(ctxT(t), "-1001234567890"); err != nil {
		t.Fatal(err)
	}
	acts := srv.ChatActions()
	if len(acts) != 1 || acts[0] != (telegramtest.ChatAction{ChatID: sg.ID, Action: "typing"}) {
		t.Fatalf("chat actions %+v", acts)
	}
}

// TestRestartBeforeConfirmation stops an adapter while it has delivered
// part of a batch: the next instance gets the rest again, nothing is lost,
// and what was stored twice is dropped by the store.
func TestRestartBeforeConfirmation(t *testing.T) {
	for _, keepCursor := range []bool{true, false} {
		t.Run(fmt.Sprintf("cursor kept %v", keepCursor), func(t *testing.T) {
			srv := startServer(t)
			inbox := newInbox()
			cursors := &memCursors{}
			blocked := make(chan struct{})
			inbox.fail = func(ctx context.Context, m state.Message) error {
				if m.PlatformID == "2" {
					close(blocked)
					<-ctx.Done() // the process dies while storing message 2
					return ctx.Err()
				}
				return nil
			}
			for _, text := range []string{"one", "two", "three"} {
				srv.Post(telegramtest.Incoming{Chat: sg, From: ann, Text: text})
			}
			stop := run(t, newAdapter(t, srv, cursors), inbox)
			<-blocked
			stop()
			if got := inbox.messages(); len(got) != 1 {
				t.Fatalf("first instance stored %d messages, want 1", len(got))
			}
			if pending := srv.Pending(); len(pending) != 3 {
				t.Fatalf("pending updates %v: the server must still hold the unconfirmed batch", pending)
			}

			inbox.fail = nil
			second := cursors
			if !keepCursor {
				second = &memCursors{}
			}
			run(t, newAdapter(t, srv, second), inbox)
			msgs := inbox.wait(t, 3)
			if err := srv.WaitConfirmed(ctxT(t), 3); err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, m := range inbox.messages() {
				texts = append(texts, m.Content)
			}
			if strings.Join(texts, ",") != "one,two,three" || len(msgs) != 3 {
				t.Fatalf("stored %v", texts)
			}
			wantDups := 0
			if !keepCursor {
				wantDups = 1 // message 1 came again and was dropped by the store
			}
			if inbox.dups != wantDups {
				t.Fatalf("%d duplicate deliveries, want %d", inbox.dups, wantDups)
			}
		})
	}
}

func TestDeliveryFailureIsRetriedNotConfirmed(t *testing.T) {
	srv := startServer(t)
	a := newAdapter(t, srv, &memCursors{})
	var mu sync.Mutex
	failures := 0
	confirmedWhileFailing := -1
	a.wait = func(ctx context.Context, d time.Duration) error { return ctx.Err() }
	inbox := newInbox()
	inbox.fail = func(ctx context.Context, m state.Message) error {
		mu.Lock()
		defer mu.Unlock()
		if failures < 2 {
			failures++
			confirmedWhileFailing = len(srv.Pending())
			return errors.New("database is locked")
		}
		return nil
	}
	srv.Post(telegramtest.Incoming{From: ann, Text: "keep me"})
	run(t, a, inbox)
	msgs := inbox.wait(t, 1)
	if msgs[0].Content != "keep me" || failures != 2 || confirmedWhileFailing != 1 {
		t.Fatalf("delivered %+v after %d failures (pending while failing %d)", msgs, failures, confirmedWhileFailing)
	}
	if err := srv.WaitConfirmed(ctxT(t), 1); err != nil {
		t.Fatal(err)
	}
}

func TestOffsetIsStored(t *testing.T) {
	srv := startServer(t)
	cursors := &memCursors{}
	inbox := newInbox()
	stop := run(t, newAdapter(t, srv, cursors), inbox)
	srv.Post(telegramtest.Incoming{From: ann, Text: "a"})
	srv.Post(telegramtest.Incoming{From: bob, Text: "b"})
	inbox.wait(t, 2)
	stop()
	if got, _ := cursors.Cursor(context.Background(), "telegram:7000001:offset"); got != "3" {
		t.Fatalf("stored offset %q, want 3", got)
	}
}

func TestBadTokenFailsAtStart(t *testing.T) {
	srv := startServer(t)
	wrong := "987654321:ZZHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw9"
	a, err := New(Config{Token: wrong, APIBaseURL: srv.URL()}, nil, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	err = a.Run(ctxT(t), newInbox())
	if !errors.Is(err, ErrUnauthorized) || !strings.Contains(err.Error(), "TELEGRAM_BOT_TOKEN was refused by the Bot API") {
		t.Fatalf("err = %v, want the token refused", err)
	}
	if strings.Contains(err.Error(), wrong) || strings.Contains(err.Error(), "ZZHdq") {
		t.Fatalf("error shows the token: %v", err)
	}
	select {
	case <-a.Ready():
		t.Fatal("ready with a refused token")
	default:
	}
}

func TestStartErrorsAreClear(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"empty token", Config{}, "TELEGRAM_BOT_TOKEN is empty"},
		{"malformed token", Config{Token: "12345:secretsecret"}, "does not look like a bot token"},
		{"bad url", Config{Token: telegramtest.DefaultToken, APIBaseURL: "ftp://x"}, "not an http(s) URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg, nil, zaptest.NewLogger(t))
			if err == nil || !strings.Contains(err.Error(), tt.want) || (tt.cfg.Token != "" && strings.Contains(err.Error(), tt.cfg.Token)) {
				t.Fatalf("err = %v, want %q without the token", err, tt.want)
			}
		})
	}
	t.Run("unreachable server", func(t *testing.T) {
		srv := telegramtest.Start(telegramtest.Options{})
		url := srv.URL()
		srv.Close()
		a, err := New(Config{Token: telegramtest.DefaultToken, APIBaseURL: url}, nil, zaptest.NewLogger(t))
		if err != nil {
			t.Fatal(err)
		}
		err = a.Run(ctxT(t), newInbox())
		if err == nil || !strings.Contains(err.Error(), "reach the Bot API") || strings.Contains(err.Error(), telegramtest.DefaultToken) {
			t.Fatalf("err = %v, want a clear failure without the token", err)
		}
	})
}

func TestRunStopsWithoutLeaks(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := telegramtest.Start(telegramtest.Options{})
	defer srv.Close()
	a := newAdapter(t, srv, nil)
	inbox := newInbox()
	stop := run(t, a, inbox)
	srv.Post(telegramtest.Incoming{From: ann, Text: "hi"})
	inbox.wait(t, 1)
	// Stop while a long poll is waiting.
	if err := srv.WaitCalls(ctxT(t), "getUpdates", 2); err != nil {
		t.Fatal(err)
	}
	stop()
}

func TestForumTopics(t *testing.T) {
	srv := startServer(t)
	a := newAdapter(t, srv, nil)
	inbox := newInbox()
	run(t, a, inbox)
	forum := telegramtest.Chat{ID: -1009876543210, Type: telegramtest.Supergroup, Title: "Forum", IsForum: true}
	id := strconv.FormatInt(forum.ID, 10)

	tea := srv.CreateTopic(forum, ann, "Tea")
	first := srv.Post(telegramtest.Incoming{Chat: forum, From: ann, Text: "in the tea topic", Thread: tea})
	srv.Post(telegramtest.Incoming{Chat: forum, From: bob, Text: "in General"})
	if err := srv.RenameTopic(forum, ann, tea, "Tea & cake"); err != nil {
		t.Fatal(err)
	}
	srv.Post(telegramtest.Incoming{Chat: forum, From: bob, Text: "renamed", Thread: tea})
	msgs := inbox.wait(t, 3)
	topic := id + "/" + strconv.Itoa(tea)
	for i, want := range []string{topic, id, topic} {
		if msgs[i].ChannelID != want {
			t.Errorf("message %d (%q) is in channel %q, want %q", i, msgs[i].Content, msgs[i].ChannelID, want)
		}
	}
	if msgs[0].ReplyTo != "" {
		t.Errorf("a topic message replies to %q: the topic's creation is no reply", msgs[0].ReplyTo)
	}
	if got := inbox.channel(id).Title; got != "Forum" {
		t.Errorf("General's title = %q", got)
	}
	if got := inbox.channel(topic).Title; got != "Forum / Tea & cake" {
		t.Errorf("topic title = %q, want the renamed one", got)
	}

	long := strings.Repeat("word ", 1000) // two parts
	if _, err := a.Send(ctxT(t), state.Outgoing{ChannelID: topic, Content: long}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(ctxT(t), state.Outgoing{ChannelID: id, Content: "to General"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(ctxT(t), state.Outgoing{ChannelID: topic, Content: "replying in the topic", ReplyTo: strconv.Itoa(first.MessageID)}); err != nil {
		t.Fatal(err)
	}
	var threads []int
	for _, s := range srv.Sent() {
		threads = append(threads, s.Thread)
	}
	want := fmt.Sprint([]int{tea, tea, 0, tea})
	if fmt.Sprint(threads) != want {
		t.Fatalf("sent to topics %v, want %v", threads, want)
	}
	if _, err := a.Send(ctxT(t), state.Outgoing{ChannelID: id, Content: "across", ReplyTo: strconv.Itoa(first.MessageID)}); err == nil || !strings.Contains(err.Error(), "another channel") {
		t.Errorf("a reply from General to a message of topic %d: %v", tea, err)
	}
	if n := len(srv.Sent()); n != 4 {
		t.Errorf("%d messages sent, want the refused reply left out", n)
	}
	if _, err := a.Send(ctxT(t), state.Outgoing{ChannelID: id + "/99", Content: "nowhere"}); err == nil || !strings.Contains(err.Error(), "no longer exists") {
		t.Errorf("send to a missing topic: %v", err)
	}
	if _, err := a.Send(ctxT(t), state.Outgoing{ChannelID: id + "/x", Content: "bad"}); err == nil {
		t.Error("a channel id with a bad topic was accepted")
	}
}

func TestPollStepByStep(t *testing.T) {
	srv := startServer(t)
	a, ctx := connected(t, srv)
	inbox := newInbox()
	srv.Post(telegramtest.Incoming{From: ann, Text: "one"})
	srv.Post(telegramtest.Incoming{Chat: sg, From: bob, Text: "two"})
	next, err := a.Poll(ctx, inbox, 0)
	if err != nil || next != 3 || len(inbox.messages()) != 2 {
		t.Fatalf("first step: offset %d, %d delivered, %v", next, len(inbox.messages()), err)
	}
	if pending := srv.Pending(); len(pending) != 2 {
		t.Fatalf("confirmed before the next call: pending %v", pending)
	}
	srv.Post(telegramtest.Incoming{From: ann, Text: "three"})
	next, err = a.Poll(ctx, inbox, next)
	if err != nil || next != 4 || len(inbox.messages()) != 3 {
		t.Fatalf("second step: offset %d, %d delivered, %v", next, len(inbox.messages()), err)
	}
	if pending := srv.Pending(); len(pending) != 1 || pending[0] != 3 {
		t.Fatalf("pending %v, want [3]: the second call confirms the first batch only", pending)
	}
}

// TestPartsCountsWhatSendSends checks that Parts, asked before a send,
// tells exactly how many messages the send then puts in the chat.
func TestPartsCountsWhatSendSends(t *testing.T) {
	var para strings.Builder
	for para.Len() < 9000 {
		para.WriteString("A **bold** claim & a [link](https://example.com) follow. ")
	}
	tests := []struct {
		name    string
		content string
		want    int
	}{
		{"short", "hello", 1},
		{"exactly the limit", strings.Repeat("a", MaxMessageUTF16), 1},
		{"one unit over", strings.Repeat("a", MaxMessageUTF16+1), 2},
		{"emoji count twice", strings.Repeat("🙂", 2100), 2},
		{"markup is not counted", strings.Repeat("**b**", 1000), 1},
		{"long formatted text", para.String(), 2},
		{"an empty code block", "```\n```", 0},
	}
	srv := startServer(t)
	a := newAdapter(t, srv, nil)
	srv.Post(telegramtest.Incoming{Chat: sg, From: ann, Text: "x"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := state.Outgoing{ChannelID: strconv.FormatInt(sg.ID, 10), Content: tt.content}
			if got := a.Parts(out); got != tt.want {
				t.Fatalf("Parts = %d, want %d", got, tt.want)
			}
			before := len(srv.Sent())
			_, err := a.Send(ctxT(t), out)
			if sent := len(srv.Sent()) - before; sent != tt.want || (err != nil) != (tt.want == 0) {
				t.Errorf("Send sent %d messages (err %v), Parts said %d", sent, err, tt.want)
			}
		})
	}
}

// TestPollDeliversChatsAtOnce: the updates of one answer are delivered
// chat by chat at the same time, each chat's in order. A chat whose
// delivery fails stops there, the offset stops before the failed update,
// and the next call brings it again with what follows it.
func TestPollDeliversChatsAtOnce(t *testing.T) {
	srv := startServer(t)
	a, ctx := connected(t, srv)
	inbox := newInbox()
	bobStored := make(chan struct{})
	var failOnce sync.Once
	inbox.fail = func(ctx context.Context, m state.Message) error {
		switch m.Content {
		case "a1":
			// Ann's chat waits for Bob's: delivered one after the other,
			// this would never end.
			select {
			case <-bobStored:
			case <-ctx.Done():
				return ctx.Err()
			}
		case "b1":
			defer close(bobStored)
		case "b2":
			var err error
			failOnce.Do(func() { err = errors.New("database is locked") })
			return err
		}
		return nil
	}
	for _, in := range []telegramtest.Incoming{
		{From: ann, Text: "a1"}, {From: bob, Text: "b1"}, {From: bob, Text: "b2"}, {From: ann, Text: "a2"}, {From: bob, Text: "b3"},
	} {
		srv.Post(in)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	next, err := a.Poll(pctx, inbox, 0)
	if err == nil || next != 3 {
		t.Fatalf("first poll: offset %d, %v; want 3 (before b2) and the delivery error", next, err)
	}
	if got := contents(inbox.messages()); got != "a1,a2,b1" {
		t.Fatalf("delivered %s after the first poll, want Ann's both and b1 (b3 waits behind b2)", got)
	}
	next, err = a.Poll(ctx, inbox, next)
	if err != nil || next != 6 {
		t.Fatalf("second poll: offset %d, %v; want 6", next, err)
	}
	if got := contents(inbox.messages()); got != "a1,a2,b1,b2,b3" {
		t.Fatalf("delivered %s, want every message once, each chat in order", got)
	}
	if inbox.dups != 1 {
		t.Errorf("%d duplicate deliveries, want 1 (a2, fetched again after b2 failed)", inbox.dups)
	}
}

// contents lists the messages' texts, sorted by chat and then in the
// order they were stored.
func contents(msgs []state.Message) string {
	byChat := map[string][]string{}
	var chats []string
	for _, m := range msgs {
		if _, ok := byChat[m.ChannelID]; !ok {
			chats = append(chats, m.ChannelID)
		}
		byChat[m.ChannelID] = append(byChat[m.ChannelID], m.Content)
	}
	sort.Slice(chats, func(i, j int) bool { return byChat[chats[i]][0] < byChat[chats[j]][0] })
	var out []string
	for _, c := range chats {
		out = append(out, byChat[c]...)
	}
	return strings.Join(out, ",")
}
