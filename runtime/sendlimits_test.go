package runtime_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/adapters/telegram"
	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/state"
)

// answeringModel answers each call with the next of its answers (the last
// one once they run out) and keeps the requests.
type answeringModel struct {
	mu      sync.Mutex
	answers []string
	reqs    []planner.Request
}

func (m *answeringModel) Complete(_ context.Context, req planner.Request) (planner.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, req)
	a := m.answers[min(len(m.reqs), len(m.answers))-1]
	return planner.Response{Content: a, Attempts: 1}, nil
}

func (m *answeringModel) requests() []planner.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]planner.Request(nil), m.reqs...)
}

// sendJSON is the model's send_message answer for content.
func sendJSON(channel, content string) string {
	b, err := json.Marshal(map[string]string{"action": "send_message", "channelId": channel, "content": content})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// telegramBot is the runtime wired to the Telegram adapter against the
// fake Bot API, with one supergroup where Ann has just written.
type telegramBot struct {
	rt    *runtime.Bot
	tg    *telegramtest.Server
	model *answeringModel
	chat  string
}

// newTelegramBot builds the bot with the default settings, without the
// pause between calls, named Mira; set, when not nil, changes more.
func newTelegramBot(t *testing.T, set func(*runtime.Config), answers ...string) *telegramBot {
	t.Helper()
	ctx := context.Background()
	log := zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel))
	tg := telegramtest.Start(telegramtest.Options{ReadAllGroupMessages: true})
	t.Cleanup(tg.Close)
	cfg := runtime.Defaults()
	cfg.ContinueDelay, cfg.BotName = 0, "Mira"
	if set != nil {
		set(&cfg)
	}
	model := &answeringModel{answers: answers}
	store, err := runtime.OpenStore(ctx, runtime.StoreConfig{DBPath: t.TempDir() + "/airi.db"}, log, true)
	if err != nil {
		t.Fatal(err)
	}
	a, err := telegram.New(telegram.Config{Token: tg.Token(), APIBaseURL: tg.URL(), HTTPTimeout: 5 * time.Second}, store, log)
	if err != nil {
		t.Fatal(err)
	}
	p, err := prompts.Load(cfg.PromptsDir, log)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := runtime.New(cfg, runtime.Deps{Logger: log, Model: model, Store: store, Prompts: p, Adapters: []runtime.Adapter{{Sender: a}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })

	group := telegramtest.Chat{ID: -1001234567890, Type: telegramtest.Supergroup, Title: "Harbour"}
	ann := telegramtest.User{ID: 501, FirstName: "Ann"}
	in := tg.Post(telegramtest.Incoming{Chat: group, From: ann, Text: "tell me everything"})
	b := &telegramBot{rt: rt, tg: tg, model: model, chat: strconv.FormatInt(group.ID, 10)}
	ch := state.Channel{ID: b.chat, Platform: telegram.Name, Title: group.Title, Group: true}
	msg := state.Message{ChannelID: b.chat, PlatformID: strconv.Itoa(in.MessageID), SenderID: "501", SenderName: "Ann",
		Content: "tell me everything", Time: time.Now().UTC()}
	if err := rt.Inbox(telegram.Name).Deliver(ctx, ch, msg); err != nil {
		t.Fatal(err)
	}
	return b
}

// wake runs one wake of the group, as the loop would after the debounce.
func (b *telegramBot) wake(t *testing.T) {
	t.Helper()
	b.rt.Scheduler().Wake(t.Context(), b.chat, "message")
}

// ownHistory returns the bot's messages stored in the group's history.
func (b *telegramBot) ownHistory(t *testing.T) []state.Message {
	t.Helper()
	hist, _, err := b.rt.Store().History(t.Context(), b.chat, 0)
	if err != nil {
		t.Fatal(err)
	}
	var own []state.Message
	for _, m := range hist {
		if m.Self {
			own = append(own, m)
		}
	}
	return own
}

// stateAfter returns the state message of the request after the n-th.
func (b *telegramBot) stateAfter(t *testing.T, n int) string {
	t.Helper()
	reqs := b.model.requests()
	if len(reqs) <= n {
		t.Fatalf("the model was called %d times, want more than %d", len(reqs), n)
	}
	msgs := reqs[n].Messages
	return msgs[len(msgs)-1].Content
}

func TestTelegramSendOf100KBIsRefused(t *testing.T) {
	content := strings.Repeat("All the details, once more. ", 3572)[:100000]
	b := newTelegramBot(t, nil, sendJSON("-1001234567890", content), `{"action":"continue"}`)
	b.wake(t)
	if sent := b.tg.Sent(); len(sent) != 0 {
		t.Fatalf("%d messages reached the chat, want none", len(sent))
	}
	if own := b.ownHistory(t); len(own) != 0 {
		t.Errorf("the refused send is in the history: %d messages", len(own))
	}
	st := b.stateAfter(t, 1)
	for _, want := range []string{"not sent", "100000 characters", "at most 4000", "nothing went out"} {
		if !strings.Contains(st, want) {
			t.Errorf("the model was not told %q; state:\n%s", want, st)
		}
	}
	if strings.Contains(st, "failed") {
		t.Errorf("the model was told the send failed:\n%s", st)
	}
}

func TestTelegramSendOverOnePartIsDeliveredAndRecorded(t *testing.T) {
	// 2,100 emoji are 2,100 characters, within AIRI_MAX_SEND_CHARS, but
	// 4,200 UTF-16 units: more than one Telegram message holds.
	content := strings.Repeat("🙂", 2100)
	b := newTelegramBot(t, nil, sendJSON("-1001234567890", content), `{"action":"continue"}`)
	b.wake(t)
	sent := b.tg.Sent()
	if len(sent) < 2 || len(sent) > 3 {
		t.Fatalf("%d messages reached the chat, want 2 or 3", len(sent))
	}
	var joined strings.Builder
	for _, s := range sent {
		if n := len(utf16.Encode([]rune(s.Text))); n > telegram.MaxMessageUTF16 {
			t.Errorf("a part of %d UTF-16 units", n)
		}
		joined.WriteString(s.Text)
	}
	if joined.String() != content {
		t.Error("the parts do not add up to the message")
	}
	own := b.ownHistory(t)
	if len(own) != 1 || own[0].Content != content || own[0].PlatformID != strconv.Itoa(sent[0].MessageID) {
		t.Fatalf("history holds %d own messages, want the one sent", len(own))
	}
	// The send ended the wake: its result is what the model reads next.
	ticks, err := b.rt.Store().Ticks(t.Context(), state.TickFilter{ChannelID: b.chat})
	if err != nil || len(ticks) != 1 {
		t.Fatalf("%d ticks recorded, want 1 (%v)", len(ticks), err)
	}
	if tk := ticks[0]; !tk.OK || tk.Result != `sent to "-1001234567890"` {
		t.Errorf("the send was recorded as %v %q, want sent", tk.OK, tk.Result)
	}
}

func TestTelegramSendOverPartsLimitIsRefused(t *testing.T) {
	// Within a raised character limit, but four Telegram messages long.
	content := strings.Repeat("Line of news. ", 1200) // 16,800 characters
	b := newTelegramBot(t, func(c *runtime.Config) { c.MaxSendChars = 20000 },
		sendJSON("-1001234567890", content), `{"action":"continue"}`)
	b.wake(t)
	if sent := b.tg.Sent(); len(sent) != 0 {
		t.Fatalf("%d messages reached the chat, want none", len(sent))
	}
	st := b.stateAfter(t, 1)
	for _, want := range []string{"not sent", "5 separate messages on telegram", "at most 3"} {
		if !strings.Contains(st, want) {
			t.Errorf("the model was not told %q; state:\n%s", want, st)
		}
	}
}

func TestTelegramFiveIdenticalSendsDeliverOne(t *testing.T) {
	// "then": "next" asks for another call after a send that went out.
	answer := strings.Replace(sendJSON("-1001234567890", "Everything is fine."), "{", `{"then":"next",`, 1)
	b := newTelegramBot(t, nil, answer)
	b.wake(t)
	if n := len(b.model.requests()); n != 5 {
		t.Fatalf("the model was called %d times in the wake, want 5", n)
	}
	if sent := b.tg.Sent(); len(sent) != 1 || sent[0].Text != "Everything is fine." {
		t.Fatalf("sent %+v, want the message once", sent)
	}
	if own := b.ownHistory(t); len(own) != 1 {
		t.Errorf("history holds %d own messages, want 1", len(own))
	}
	if st := b.stateAfter(t, 2); !strings.Contains(st, "same message") {
		t.Errorf("the model was not told the repeat was refused:\n%s", st)
	}
}

func TestAllowlistHidesExcludedChannelsFromTheModel(t *testing.T) {
	b := newTelegramBot(t, func(c *runtime.Config) { c.AllowChannels = []string{"-1001234567890"} },
		`{"action":"list_channels"}`, sendJSON("-100777", "psst"), `{"action":"continue"}`)
	hidden := state.Channel{ID: "-100777", Platform: telegram.Name, Title: "Back Room", Group: true}
	for i := range 3 {
		msg := state.Message{ChannelID: hidden.ID, PlatformID: strconv.Itoa(i + 1), SenderName: "Eve", Content: "secret", Time: time.Now().UTC()}
		if err := b.rt.Inbox(telegram.Name).Deliver(t.Context(), hidden, msg); err != nil {
			t.Fatal(err)
		}
	}
	b.wake(t)
	reqs := b.model.requests()
	if len(reqs) != 3 {
		t.Fatalf("the model was called %d times, want 3", len(reqs))
	}
	for i, req := range reqs {
		for _, m := range req.Messages {
			if strings.Contains(m.Content, "-100777") && !strings.Contains(m.Content, `unknown channel "-100777"`) ||
				strings.Contains(m.Content, "Back Room") {
				t.Errorf("request %d shows the excluded channel:\n%s", i+1, m.Content)
			}
		}
	}
	if st := b.stateAfter(t, 2); !strings.Contains(st, `unknown channel "-100777"; known channels: "-1001234567890"`) {
		t.Errorf("the refused send does not read as an unknown channel:\n%s", st)
	}
	if sent := b.tg.Sent(); len(sent) != 0 {
		t.Errorf("sent %+v", sent)
	}
}
