package runtime

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/adapters/satori"
	"github.com/airi-go/airi/adapters/satori/satoritest"
	"github.com/airi-go/airi/adapters/telegram"
	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner/openai"
	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// The tests of this file run the wired bot against the fake Bot API, the
// fake Satori server and the fake model, on a clock that moves only when
// told: the adapters deliver, and the scheduler's wakes are run with
// NextDue and RunDue, so that "before the debounce ends" is exact.

// chatsClock moves only when told.
type chatsClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *chatsClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *chatsClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// chatsBot is a bot stepped by hand.
type chatsBot struct {
	t     *testing.T
	b     *Bot
	clock *chatsClock
	model *openaitest.Server
}

// chatsStart is when the clock of every test starts.
var chatsStart = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

// newChatsBot builds the bot on a fresh SQLite store with the adapter
// made by adapter and the model answering with answer, on clock (a new
// one when nil).
func newChatsBot(t *testing.T, cfg Config, answer openaitest.AnswerFunc, adapter func(store state.Store) Adapter, clock *chatsClock) *chatsBot {
	t.Helper()
	log := zaptest.NewLogger(t)
	store, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "airi.db"), log)
	if err != nil {
		t.Fatal(err)
	}
	model := openaitest.NewServer(t, answer)
	client, err := openai.New(openai.Config{BaseURL: model.URL(), APIKey: "k", Model: "m", Timeout: 10 * time.Second}, log)
	if err != nil {
		t.Fatal(err)
	}
	if clock == nil {
		clock = &chatsClock{now: chatsStart}
	}
	if cfg.Debounce == 0 {
		cfg.Debounce = 2 * time.Second
	}
	cfg.MaxIterations = max(cfg.MaxIterations, 3)
	b, err := New(cfg, Deps{Store: store, Model: client, Adapters: []Adapter{adapter(store)}, Now: clock.Now, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return &chatsBot{t: t, b: b, clock: clock, model: model}
}

// runDue runs every wake due up to now plus d, in order.
func (c *chatsBot) runDue(d time.Duration) {
	c.t.Helper()
	limit := c.clock.Now().Add(d)
	for range 20 {
		id, at, _, ok := c.b.sched.NextDue()
		if !ok || at.After(limit) {
			break
		}
		if at.After(c.clock.Now()) {
			c.clock.add(at.Sub(c.clock.Now()))
		}
		c.b.sched.RunDue(context.Background(), id)
	}
}

// due reports whether a wake is due within d and for which channel.
func (c *chatsBot) due(d time.Duration) (string, string, bool) {
	id, at, trig, ok := c.b.sched.NextDue()
	return id, trig, ok && !at.After(c.clock.Now().Add(d))
}

// telegramPoller is the Telegram adapter polled step by step; the fake
// Bot API dates its messages on the bot's clock.
type telegramPoller struct {
	t      *testing.T
	srv    *telegramtest.Server
	a      *telegram.Adapter
	clock  *chatsClock
	offset int
}

func newTelegram(t *testing.T) (*telegramtest.Server, *telegramPoller) {
	clock := &chatsClock{now: chatsStart}
	srv := telegramtest.Start(telegramtest.Options{Now: clock.Now})
	t.Cleanup(srv.Close)
	return srv, &telegramPoller{t: t, srv: srv, clock: clock}
}

func (p *telegramPoller) adapter(store state.Store) Adapter {
	a, err := telegram.New(telegram.Config{Token: p.srv.Token(), APIBaseURL: p.srv.URL(), PollTimeout: time.Second}, store, zaptest.NewLogger(p.t))
	if err != nil {
		p.t.Fatal(err)
	}
	if err := a.Connect(context.Background()); err != nil {
		p.t.Fatal(err)
	}
	p.a = a
	return Adapter{Sender: a}
}

// poll delivers the updates queued on the fake Bot API.
func (p *telegramPoller) poll(b *Bot) {
	p.t.Helper()
	if len(p.srv.Pending()) == 0 {
		p.t.Fatal("poll with no update queued would wait for the long poll")
	}
	next, err := p.a.Poll(context.Background(), b.Inbox(telegram.Name), p.offset)
	if err != nil {
		p.t.Fatal(err)
	}
	p.offset = next
}

// sendTo answers every call with one message to channel, numbered so
// that no two are the same.
func sendTo(channel, content string) openaitest.AnswerFunc {
	return func(_ context.Context, r openaitest.Request) openaitest.Reply {
		return openaitest.Text(fmt.Sprintf(`{"action":"send_message","channelId":%q,"content":"%s (%d)"}`, channel, content, r.Call))
	}
}

func requestText(r openaitest.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	return b.String()
}

var ada = telegramtest.User{ID: 501, FirstName: "Ada"}

func TestEditBeforeTheDebounceShowsOnlyTheNewText(t *testing.T) {
	srv, tg := newTelegram(t)
	chat := strconv.FormatInt(ada.ID, 10)
	c := newChatsBot(t, Config{}, sendTo(chat, "6"), tg.adapter, tg.clock)

	m := srv.Post(telegramtest.Incoming{From: ada, Text: "what is 2+2 m-aaa"})
	tg.poll(c.b)
	c.clock.add(time.Second) // within the debounce
	if err := srv.Edit(m.Chat.ID, m.MessageID, "what is 3+3 m-bbb"); err != nil {
		t.Fatal(err)
	}
	tg.poll(c.b)
	c.runDue(time.Minute)

	reqs := c.model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls, want 1", len(reqs))
	}
	text := requestText(reqs[0])
	if strings.Contains(text, "m-aaa") || !strings.Contains(reqs[0].LastUser(), "what is 3+3 m-bbb") {
		t.Fatalf("the request does not show only the new text:\n%s", text)
	}
	if sent := srv.Sent(); len(sent) != 1 || sent[0].Text != "6 (1)" {
		t.Fatalf("sent %+v", sent)
	}
}

func TestEditAfterTheReply(t *testing.T) {
	srv, tg := newTelegram(t)
	chat := strconv.FormatInt(ada.ID, 10)
	c := newChatsBot(t, Config{}, sendTo(chat, "4"), tg.adapter, tg.clock)

	m := srv.Post(telegramtest.Incoming{From: ada, Text: "what is 2+2 m-aaa"})
	tg.poll(c.b)
	c.runDue(time.Minute)
	if n := c.model.Calls(); n != 1 {
		t.Fatalf("%d calls for the question, want 1", n)
	}

	// The same text again (a link preview appearing) changes nothing.
	if err := srv.Edit(m.Chat.ID, m.MessageID, "what is 2+2 m-aaa"); err != nil {
		t.Fatal(err)
	}
	tg.poll(c.b)
	if err := srv.Edit(m.Chat.ID, m.MessageID, "what is 3+3 m-bbb"); err != nil {
		t.Fatal(err)
	}
	tg.poll(c.b)
	if id, trig, ok := c.due(time.Hour); ok {
		t.Fatalf("an edit of an answered message woke %s (%s)", id, trig)
	}
	c.runDue(time.Hour)
	if n := c.model.Calls(); n != 1 {
		t.Fatalf("%d model calls after the edit, want still 1", n)
	}

	// The next message's request shows the edit: in the history with its
	// new text, marked, and once in the state message.
	srv.Post(telegramtest.Incoming{From: ada, Text: "and now? m-ccc"})
	tg.poll(c.b)
	c.runDue(time.Minute)
	srv.Post(telegramtest.Incoming{From: ada, Text: "thanks m-ddd"})
	tg.poll(c.b)
	c.runDue(time.Minute)
	reqs := c.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3", len(reqs))
	}
	second, third := reqs[1], reqs[2]
	if !strings.Contains(requestText(second), `Ada: "what is 3+3 m-bbb" (edited)`) || strings.Contains(requestText(second), `"what is 2+2 m-aaa" (edited)`) {
		t.Errorf("history of the next request does not show the edited text:\n%s", requestText(second))
	}
	note := `Ada edited message ` + strconv.Itoa(m.MessageID) + `: "what is 2+2 m-aaa" → "what is 3+3 m-bbb"`
	if !strings.Contains(second.LastUser(), note) {
		t.Errorf("state message does not say what changed (%s):\n%s", note, second.LastUser())
	}
	if strings.Contains(third.LastUser(), "edited message") {
		t.Errorf("the edit is told twice:\n%s", third.LastUser())
	}
}

func TestEditThatAddressesTheBotWakesIt(t *testing.T) {
	srv, tg := newTelegram(t)
	group := telegramtest.Chat{ID: -1001000, Type: telegramtest.Supergroup, Title: "Tea"}
	chat := strconv.FormatInt(group.ID, 10)
	cfg := Config{Attention: attention.Policy{Default: attention.Defaults()}}
	cfg.Attention.Default.Mode = attention.ModeAddressed
	c := newChatsBot(t, cfg, sendTo(chat, "here"), tg.adapter, tg.clock)

	m := srv.Post(telegramtest.Incoming{Chat: group, From: ada, Text: "is anyone around"})
	tg.poll(c.b)
	if _, _, ok := c.due(time.Hour); ok {
		t.Fatal("an unaddressed message woke the bot")
	}
	if err := srv.Edit(group.ID, m.MessageID, "is anyone around @"+srv.Bot().Username); err != nil {
		t.Fatal(err)
	}
	tg.poll(c.b)
	id, trig, ok := c.due(time.Minute)
	if !ok || id != chat || trig != "edited" {
		t.Fatalf("due %q (%s, %v), want %s woken by edited", id, trig, ok, chat)
	}
	c.runDue(time.Minute)
	reqs := c.model.Requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].LastUser(), "is anyone around @"+srv.Bot().Username) {
		t.Fatalf("requests %+v", reqs)
	}
	ticks, err := c.b.store.Ticks(context.Background(), state.TickFilter{ChannelID: chat})
	if err != nil || len(ticks) != 1 || ticks[0].Trigger != "edited" {
		t.Fatalf("ticks %+v, %v: want one with trigger edited", ticks, err)
	}
}

func TestForumTopicsAreChannels(t *testing.T) {
	srv, tg := newTelegram(t)
	forum := telegramtest.Chat{ID: -1002000, Type: telegramtest.Supergroup, Title: "Club", IsForum: true}
	chat := strconv.FormatInt(forum.ID, 10)
	cfg := Config{Attention: attention.Policy{Default: attention.Defaults()}}
	cfg.Attention.Default.Mode = attention.ModeAll
	var mu sync.Mutex
	answer := func(_ context.Context, r openaitest.Request) openaitest.Reply {
		mu.Lock()
		defer mu.Unlock()
		// Answer in the channel the request is about (its user field).
		id := strings.TrimPrefix(r.User, "airi:")
		return openaitest.Text(fmt.Sprintf(`{"action":"send_message","channelId":%q,"content":"ok %d"}`, id, r.Call))
	}
	cfg.SendUser = true
	c := newChatsBot(t, cfg, answer, tg.adapter, tg.clock)

	// Topics 5 and 9 as ids: created in this order in a chat whose first
	// four messages were already there.
	for range 4 {
		srv.Post(telegramtest.Incoming{Chat: forum, From: ada, Text: "general chatter"})
	}
	five := srv.CreateTopic(forum, ada, "Books")
	for five < 9-1 {
		srv.Post(telegramtest.Incoming{Chat: forum, From: ada, Text: "more general chatter"})
		five++
	}
	nine := srv.CreateTopic(forum, ada, "Games")
	five = 5
	if nine != 9 {
		t.Fatalf("topics %d and %d, want 5 and 9", five, nine)
	}
	tg.poll(c.b)
	c.runDue(time.Minute) // General answered
	before := c.model.Calls()

	srv.Post(telegramtest.Incoming{Chat: forum, From: ada, Text: "secret of the book club t5-only", Thread: five})
	tg.poll(c.b)
	c.runDue(time.Minute)
	srv.Post(telegramtest.Incoming{Chat: forum, From: ada, Text: "@" + srv.Bot().Username + " which game tonight?", Thread: nine})
	tg.poll(c.b)
	c.runDue(time.Minute)

	reqs := c.model.Requests()[before:]
	var nineReqs []openaitest.Request
	for _, r := range reqs {
		if r.User == "airi:"+chat+"/9" {
			nineReqs = append(nineReqs, r)
		}
	}
	if len(nineReqs) == 0 {
		t.Fatalf("no request for topic 9 among %d", len(reqs))
	}
	for _, r := range nineReqs {
		if strings.Contains(requestText(r), "t5-only") {
			t.Errorf("topic 5's history appears in a request of topic 9:\n%s", requestText(r))
		}
	}
	var toNine []telegramtest.Sent
	for _, s := range srv.Sent() {
		if s.Thread == 9 {
			toNine = append(toNine, s)
		}
	}
	if len(toNine) != 1 {
		t.Errorf("sent %+v, want one answer with message_thread_id 9", srv.Sent())
	}
	rows, err := c.b.store.ChannelActivity(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, r := range rows {
		ids[r.ChannelID] = true
	}
	for _, want := range []string{chat, chat + "/5", chat + "/9"} {
		if !ids[want] {
			t.Errorf("no channel row %s among %v", want, ids)
		}
	}
	topic, err := c.b.store.Channel(context.Background(), chat+"/9")
	if err != nil || topic.Title != "Club / Games" {
		t.Errorf("topic 9 = %+v, %v; want the title Club / Games", topic, err)
	}
}

// notifyInbox tells each delivery on a channel.
type notifyInbox struct {
	in   adapters.Inbox
	done chan struct{}
}

func (n *notifyInbox) Deliver(ctx context.Context, ch state.Channel, msg state.Message) error {
	err := n.in.Deliver(ctx, ch, msg)
	n.done <- struct{}{}
	return err
}

// satoriBot runs the Satori adapter against the fake server.
func satoriBot(t *testing.T, answer openaitest.AnswerFunc) (*satoritest.Server, *chatsBot, *notifyInbox) {
	srv := satoritest.NewServer(satoritest.Options{})
	t.Cleanup(srv.Close)
	a, err := satori.New(satori.Config{WSURL: srv.WSURL(), PingInterval: time.Hour, HTTPTimeout: 5 * time.Second}, nil, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	c := newChatsBot(t, Config{}, answer, func(state.Store) Adapter { return Adapter{Sender: a} }, nil)
	n := &notifyInbox{in: c.b.Inbox(satori.Name), done: make(chan struct{}, 16)}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- a.Run(ctx, n) }()
	t.Cleanup(func() {
		cancel()
		<-stopped
	})
	select {
	case <-a.Ready():
	case err := <-stopped:
		t.Fatalf("satori adapter stopped: %v", err)
	}
	return srv, c, n
}

func (n *notifyInbox) wait(t *testing.T, k int) {
	t.Helper()
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	for range k {
		select {
		case <-n.done:
		case <-timeout.C:
			t.Fatal("no delivery")
		}
	}
}

func TestSatoriDeletionBeforeTheDebounce(t *testing.T) {
	srv, c, in := satoriBot(t, sendTo("private:u1", "hi"))
	srv.PushMessage(satoritest.Message{ID: "m1", ChannelID: "private:u1", Direct: true, UserID: "u1", UserName: "Ada", Content: "oops wrong chat m-gone"})
	srv.PushMessage(satoritest.Message{ID: "m2", ChannelID: "private:u1", Direct: true, UserID: "u1", UserName: "Ada", Content: "hello m-kept"})
	in.wait(t, 2)
	c.clock.add(time.Second)
	srv.PushDelete("private:u1", "", "m1", 0)
	in.wait(t, 1)
	c.runDue(time.Minute)
	reqs := c.model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls, want 1", len(reqs))
	}
	if text := requestText(reqs[0]); strings.Contains(text, "m-gone") || !strings.Contains(text, "m-kept") {
		t.Fatalf("request:\n%s", text)
	}
}

func TestSatoriDeletionOfTheOnlyMessageWakesNothing(t *testing.T) {
	srv, c, in := satoriBot(t, sendTo("private:u1", "hi"))
	srv.PushMessage(satoritest.Message{ID: "m1", ChannelID: "private:u1", Direct: true, UserID: "u1", UserName: "Ada", Content: "never mind m-gone"})
	in.wait(t, 1)
	srv.PushDelete("private:u1", "", "m1", 0)
	in.wait(t, 1)
	c.runDue(time.Minute)
	if n := c.model.Calls(); n != 0 {
		t.Fatalf("%d model calls for a deleted message, want none", n)
	}
}

func TestSatoriDeleteToCancel(t *testing.T) {
	var (
		srv *satoritest.Server
		in  *notifyInbox
		t0  = t
	)
	answer := func(_ context.Context, r openaitest.Request) openaitest.Reply {
		if r.Call == 1 {
			// The sender deletes the message while the model decides.
			srv.PushDelete("private:u1", "", "m1", 0)
			in.wait(t0, 1)
		}
		if r.Call == 2 {
			return openaitest.Text(`{"action":"continue"}`)
		}
		return openaitest.Text(`{"action":"send_message","channelId":"private:u1","content":"sure, here it is"}`)
	}
	srv, c, in := satoriBot(t, answer)
	srv.PushMessage(satoritest.Message{ID: "m1", ChannelID: "private:u1", Direct: true, UserID: "u1", UserName: "Ada", Content: "send me the report"})
	in.wait(t, 1)
	c.runDue(time.Minute)

	if sent := srv.Sent(); len(sent) != 0 {
		t.Fatalf("sent %+v for a deleted message", sent)
	}
	reqs := c.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2 (the held send, then the model told why)", len(reqs))
	}
	if !strings.Contains(reqs[1].LastUser(), "were deleted by their senders") {
		t.Errorf("the model is not told why the send was held:\n%s", reqs[1].LastUser())
	}
}
