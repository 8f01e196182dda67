package runtime_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/adapters/telegram"
	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/internal/tokens"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/openai"
	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// seenModel is the fake model of the hardening tests: it serves the Chat
// Completions API with an answer function and records, for every request,
// whether its answer reached the client (the call was not cancelled or
// abandoned before the reply was written).
type seenModel struct {
	h   *openaitest.Handler
	srv *httptest.Server

	mu       sync.Mutex
	answered map[int]bool
}

type callSlotKey struct{}

func newSeenModel(t *testing.T, answer openaitest.AnswerFunc) *seenModel {
	t.Helper()
	m := &seenModel{answered: map[int]bool{}}
	m.h = openaitest.NewHandler(func(ctx context.Context, req openaitest.Request) openaitest.Reply {
		if slot, ok := ctx.Value(callSlotKey{}).(*int); ok {
			*slot = req.Call
		}
		return answer(ctx, req)
	})
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call := 0
		r = r.WithContext(context.WithValue(r.Context(), callSlotKey{}, &call))
		m.h.ServeHTTP(w, r)
		if call == 0 || r.Context().Err() != nil {
			return
		}
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		if r.Context().Err() == nil {
			m.mu.Lock()
			m.answered[call] = true
			m.mu.Unlock()
		}
	}))
	t.Cleanup(func() {
		m.h.Close()
		m.srv.Close()
	})
	return m
}

// URL is the API root to configure as LLM_API_BASE_URL.
func (m *seenModel) URL() string { return m.srv.URL + "/v1" }

// answeredStates returns the state messages of the requests whose answer
// reached the bot.
func (m *seenModel) answeredStates() []string {
	reqs := m.h.Requests()
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, r := range reqs {
		if m.answered[r.Call] {
			out = append(out, r.LastUser())
		}
	}
	return out
}

// stateOf returns the state message of request n (from 1), failing the
// test when there is none.
func (m *seenModel) stateOf(t *testing.T, n int) string {
	t.Helper()
	reqs := m.h.Requests()
	if len(reqs) < n {
		t.Fatalf("the model was called %d times, want at least %d", len(reqs), n)
	}
	return reqs[n-1].LastUser()
}

// readingModel answers like a model working through a flood: it reads
// while the state says more is unread, ends a turn after it sent, and
// otherwise now and then reads, else replies.
func readingModel(ctx context.Context, req openaitest.Request) openaitest.Reply {
	channel := strings.TrimPrefix(req.User, "airi:")
	st := req.LastUser()
	switch {
	case strings.Contains(st, "more unread here") || strings.Contains(st, "more unread in"):
		return openaitest.Text(fmt.Sprintf(`{"action":"read_unread_messages","channelId":%q}`, channel))
	case strings.Contains(st, "This turn so far:") && strings.Contains(st, "sent to"):
		return openaitest.Text(`{"action":"continue"}`)
	case req.Call%4 == 0:
		return openaitest.Text(fmt.Sprintf(`{"action":"read_unread_messages","channelId":%q}`, channel))
	}
	return openaitest.Text(sendJSON(channel, fmt.Sprintf("noted, %d", req.Call)))
}

// runBot is the bot as airi run builds it, in this process: the
// Telegram adapter against the fake Bot API, the OpenAI client against the
// fake model, a SQLite file, every goroutine started.
type runBot struct {
	b      *runtime.Bot
	cancel context.CancelFunc
	// done receives what Wait returned once the bot stopped.
	done chan error
}

// startBot starts the bot with the default settings, a 30ms debounce, no
// pause between calls and a 2s periodic tick, named Mira; set, when not
// nil, changes more.
func startBot(t *testing.T, tg *telegramtest.Server, modelURL, db string, set func(*runtime.Config)) *runBot {
	t.Helper()
	cfg := runtime.Defaults()
	cfg.Debounce, cfg.ContinueDelay, cfg.TickInterval, cfg.BotName = 30*time.Millisecond, 0, 2*time.Second, "Mira"
	cfg.ServedOnly, cfg.Replica = true, true
	if set != nil {
		set(&cfg)
	}
	log := zap.NewNop()
	ctx, cancel := context.WithCancel(context.Background())
	store, err := runtime.OpenStore(ctx, runtime.StoreConfig{DBPath: db}, log, true)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	model, err := openai.New(openai.Config{BaseURL: modelURL, APIKey: "sk-test", Model: "test-model",
		Timeout: openai.DefaultTimeout, MaxTokens: openai.DefaultMaxTokens}, log)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ad, err := telegram.New(telegram.Config{Token: tg.Token(), APIBaseURL: tg.URL()}, store, log)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	b, err := runtime.New(cfg, runtime.Deps{Model: model, Store: store, Logger: log,
		Adapters: []runtime.Adapter{{Sender: ad, Run: ad.Run, Ready: ad.Ready()}}})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	bot := &runBot{b: b, cancel: cancel, done: make(chan error, 1)}
	if err := b.Start(ctx); err != nil {
		cancel()
		_ = b.Close(context.Background())
		t.Fatal(err)
	}
	go func() { bot.done <- b.Wait() }()
	t.Cleanup(func() { bot.stop(t) })
	return bot
}

// stop ends the bot as SIGTERM ends airi run, once: its context ends,
// its goroutines stop, it closes.
func (p *runBot) stop(t *testing.T) {
	t.Helper()
	if p.cancel == nil {
		return
	}
	p.cancel()
	p.cancel = nil
	if err := <-p.done; err != nil {
		t.Errorf("the bot stopped with %v", err)
	}
	if err := p.b.Close(context.Background()); err != nil {
		t.Errorf("close: %v", err)
	}
}

// waitUntil polls cond while the bot runs; a bot that stops fails the
// test at once.
func waitUntil(t *testing.T, what string, p *runBot, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("the bot stopped (%v) while waiting until %s", err, what)
		case <-poll.C:
		}
	}
}

func dbIn(t *testing.T) string { return filepath.Join(t.TempDir(), "airi.db") }

// senderRateOff is AIRI_SENDER_RATE=off.
func senderRateOff(c *runtime.Config) { c.Attention.Default.SenderRate = attention.Rate{} }

// both applies a and then b.
func both(a, b func(*runtime.Config)) func(*runtime.Config) {
	return func(c *runtime.Config) {
		if a != nil {
			a(c)
		}
		if b != nil {
			b(c)
		}
	}
}

// readStore opens the bot's database read-only, beside the running bot.
func readStore(t *testing.T, db string) *sqlite.Store {
	t.Helper()
	st, err := sqlite.OpenReadOnly(context.Background(), db, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// readButUnseen checks the invariant on the stored messages of a channel:
// every message marked read appears in the state message of a request the
// model answered, in full or cut to the per-message cap with a marker. It
// returns the counts of stored, read and read-but-unseen messages.
func readButUnseen(t *testing.T, st *sqlite.Store, channel string, states []string) (stored, read, unseen int) {
	t.Helper()
	msgs, err := st.Events(context.Background(), state.TickFilter{ChannelID: channel})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(states, "\n\x00\n")
	for _, m := range msgs {
		if !m.Read {
			continue
		}
		read++
		full := prompts.Quote(m.Content)
		cut := prompts.Cut(m.Content, prompts.MaxMessageRunes)
		marked := strings.TrimSuffix(prompts.Quote(cut), `"`)
		if !strings.Contains(all, full) && (cut == m.Content || !strings.Contains(all, marked)) {
			if unseen < 5 {
				t.Errorf("message %s (%.30q) is read but no answered request showed it", m.PlatformID, m.Content)
			}
			unseen++
		}
	}
	return len(msgs), read, unseen
}

// floodSizeFromEnv is the number of messages of the flood test:
// AIRI_TEST_FLOOD when set (the full acceptance size is 10000), else a
// size that keeps the suite quick.
func floodSizeFromEnv(t *testing.T) int {
	t.Helper()
	v := os.Getenv("AIRI_TEST_FLOOD")
	if v == "" {
		return 2000
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 100 {
		t.Fatalf("AIRI_TEST_FLOOD=%q: want a number of messages, at least 100", v)
	}
	return n
}

var floodGroup = telegramtest.Chat{ID: -1001234567890, Type: telegramtest.Supergroup, Title: "Harbour"}

// TestRunFloodReadMeansSeen floods one Telegram group through the real
// binary, at about 2,000 messages a second from a hundred senders, while
// the model keeps reading. Nothing is lost, and every message that ends
// up read was shown in a request the model answered. With every message
// waking the bot, the whole flood ends up read; with the default attention
// policy the bot wakes on the mentions in it.
func TestRunFloodReadMeansSeen(t *testing.T) {
	if testing.Short() {
		t.Skip("a long run of the whole bot")
	}
	n := floodSizeFromEnv(t)
	tests := []struct {
		name string
		set  func(*runtime.Config)
		// mentionEvery addresses the bot in every so many messages (0: none).
		mentionEvery int
		// allRead waits until the whole flood is read.
		allRead bool
	}{
		{name: "group mode all", set: func(c *runtime.Config) { c.Attention.Default.Mode = attention.ModeAll; senderRateOff(c) }, allRead: true},
		{name: "group mode ambient with mentions", mentionEvery: 97},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg := telegramtest.Start(telegramtest.Options{ReadAllGroupMessages: true})
			defer tg.Close()
			model := newSeenModel(t, readingModel)
			db := dbIn(t)
			bot := startBot(t, tg, model.URL(), db, both(func(c *runtime.Config) {
				c.Debounce, c.TickInterval = 20*time.Millisecond, 200*time.Millisecond
			}, tt.set))
			waitUntil(t, "the bot runs", bot, func() bool { return tg.Calls("getUpdates") > 0 })

			text := func(i int) string { return fmt.Sprintf("flood #%05d: the ferry is late again", i) }
			start := time.Now()
			pace := time.NewTicker(10 * time.Millisecond)
			const perTick = 20 // 2,000 a second
			for i := 1; i <= n; i++ {
				from := telegramtest.User{ID: int64(1000 + i%100), FirstName: fmt.Sprintf("User%d", i%100)}
				body := text(i)
				last := i == n
				if last || tt.mentionEvery > 0 && i%tt.mentionEvery == 0 {
					body = "@" + tg.Bot().Username + " " + body
				}
				if last {
					from = telegramtest.User{ID: 999, FirstName: "Last"}
				}
				tg.Post(telegramtest.Incoming{Chat: floodGroup, From: from, Text: body})
				if i%perTick == 0 {
					<-pace.C
				}
			}
			pace.Stop()
			posted := time.Since(start)

			channel := strconv.FormatInt(floodGroup.ID, 10)
			waitUntil(t, "every update is confirmed", bot, func() bool { return len(tg.Pending()) == 0 })
			st := readStore(t, db)
			if tt.allRead {
				waitUntil(t, "the whole flood is read", bot, func() bool {
					counts, err := st.UnreadCounts(context.Background())
					return err == nil && counts[channel] == 0
				})
			} else {
				lastShown := prompts.Quote(text(n))
				waitUntil(t, "the last mention is answered", bot, func() bool {
					for _, s := range model.answeredStates() {
						if strings.Contains(s, strings.TrimPrefix(lastShown, `"`)) {
							return true
						}
					}
					return false
				})
			}
			bot.stop(t)

			stored, read, unseen := readButUnseen(t, st, channel, model.answeredStates())
			if stored != n {
				t.Errorf("%d messages stored, want all %d", stored, n)
			}
			if tt.allRead && read != n {
				t.Errorf("%d of %d messages read", read, n)
			}
			if unseen > 0 {
				t.Errorf("%d of %d read messages were never shown in an answered request", unseen, read)
			}
			t.Logf("%d messages posted in %v: %d stored, %d read, %d read but unseen; %d requests, %d answered, %d sent to the chat",
				n, posted.Round(time.Millisecond), stored, read, unseen, model.h.Calls(), len(model.answeredStates()), len(tg.Sent()))
		})
	}
}

// TestRunWaitingMessagesReadMeansSeen posts group messages before the bot
// starts: all are stored, all end up read, and each read one was shown in
// a request the model answered.
func TestRunWaitingMessagesReadMeansSeen(t *testing.T) {
	if testing.Short() {
		t.Skip("a long run of the whole bot")
	}
	alwaysRead := func(_ context.Context, req openaitest.Request) openaitest.Reply {
		return openaitest.Text(fmt.Sprintf(`{"action":"read_unread_messages","channelId":%q}`, strings.TrimPrefix(req.User, "airi:")))
	}
	tests := []struct {
		name    string
		n, size int
		set     func(*runtime.Config)
		model   openaitest.AnswerFunc
	}{
		{name: "60 waiting", n: 60, size: 50, model: readingModel},
		{name: "30 of 500 characters", n: 30, size: 500, model: readingModel},
		// Every wake ends on its cap right after a read: the result of the
		// last read of a wake is never shown. Each of the 7 senders writes
		// about 29 of the messages, past the default sender rate (20 a
		// minute), and a message past it wakes nothing: whether those are
		// read would depend on how far the wakes got before they arrived.
		// The rate is off, so that every message asks for a wake.
		{name: "200 waiting, wakes of two calls that read", n: 200, size: 50, set: func(c *runtime.Config) { c.MaxIterations = 2; senderRateOff(c) }, model: alwaysRead},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg := telegramtest.Start(telegramtest.Options{ReadAllGroupMessages: true})
			defer tg.Close()
			for i := 1; i <= tt.n; i++ {
				from := telegramtest.User{ID: int64(1000 + i%7), FirstName: fmt.Sprintf("User%d", i%7)}
				text := fmt.Sprintf("waiting #%02d: who has the keys to the boathouse?", i)
				for len(text) < tt.size {
					text += " The old ones are on the hook by the door, the new ones nobody knows."
				}
				tg.Post(telegramtest.Incoming{Chat: floodGroup, From: from, Text: text[:max(tt.size, 15)]})
			}
			model := newSeenModel(t, tt.model)
			db := dbIn(t)
			bot := startBot(t, tg, model.URL(), db, both(func(c *runtime.Config) {
				c.Attention.Default.Mode, c.TickInterval = attention.ModeAll, 200*time.Millisecond
			}, tt.set))
			channel := strconv.FormatInt(floodGroup.ID, 10)
			waitUntil(t, "every update is confirmed", bot, func() bool { return len(tg.Pending()) == 0 })
			st := readStore(t, db)
			waitUntil(t, "every waiting message is read", bot, func() bool {
				counts, err := st.UnreadCounts(context.Background())
				return err == nil && counts[channel] == 0
			})
			bot.stop(t)
			stored, read, unseen := readButUnseen(t, st, channel, model.answeredStates())
			if stored != tt.n || read != tt.n || unseen != 0 {
				t.Errorf("%d stored, %d read, %d read but unseen; want %d, %d, 0", stored, read, unseen, tt.n, tt.n)
			}
			t.Logf("%d waiting: %d stored, %d read, %d read but unseen over %d answered requests", tt.n, stored, read, unseen, len(model.answeredStates()))
		})
	}
}

// privateBot starts the bot against a fake Bot API where Ann has just
// written to the bot, with a model that gives answers in turn (the last
// one from then on). It returns once the model was called calls times.
func privateBot(t *testing.T, set func(*runtime.Config), calls int, answers ...string) (*telegramtest.Server, *seenModel) {
	t.Helper()
	replies := make([]openaitest.Reply, len(answers))
	for i, a := range answers {
		replies[i] = openaitest.Text(a)
	}
	return privateBotReplies(t, set, calls, replies...)
}

// privateBotReplies is privateBot with the model's replies as given.
func privateBotReplies(t *testing.T, set func(*runtime.Config), calls int, replies ...openaitest.Reply) (*telegramtest.Server, *seenModel) {
	t.Helper()
	tg := telegramtest.Start(telegramtest.Options{})
	t.Cleanup(tg.Close)
	model := newSeenModel(t, openaitest.Sequence(replies...))
	ann := telegramtest.User{ID: 501, FirstName: "Ann"}
	tg.Post(telegramtest.Incoming{Chat: telegramtest.PrivateChat(ann), From: ann, Text: "tell me everything"})
	bot := startBot(t, tg, model.URL(), dbIn(t), set)
	waitUntil(t, fmt.Sprintf("the model is called %d times", calls), bot, func() bool { return len(model.answeredStates()) >= calls })
	bot.stop(t)
	return tg, model
}

// TestRunRunawaySendIsRefused answers a message with sends no chat should
// get: at most AIRI_MAX_SEND_PARTS messages (here none) reach the chat,
// and the next request tells the model what happened.
func TestRunRunawaySendIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("a long run of the whole bot")
	}
	const maxParts = 3
	tests := []struct {
		name   string
		set    func(*runtime.Config)
		answer string
		// finish is the provider's finish_reason; empty is "stop".
		finish string
		// told is what the next state message must say; never what it must not.
		told  []string
		never string
	}{
		{
			// A runaway answer ends where the provider's length limit cut it.
			name:   "unterminated 5 MB send",
			answer: `{"action":"send_message","channelId":"501","content":"` + strings.Repeat("All the details, once more. ", 5<<20/28),
			finish: "length",
			told:   []string{`cut off in the middle of "content"`, "nothing was sent"},
			never:  "sent to",
		},
		{
			name:   "complete 100 KB send",
			answer: sendJSON("501", strings.Repeat("All the details, once more. ", 3572)[:100000]),
			told:   []string{"not sent", "100000 characters", "at most 4000", "nothing went out"},
			never:  "failed",
		},
		{
			name:   "within the characters, over the parts",
			set:    func(c *runtime.Config) { c.MaxSendChars = 20000 },
			answer: sendJSON("501", strings.Repeat("Line of news. ", 1200)),
			told:   []string{"not sent", "5 separate messages on telegram", "at most 3"},
			never:  "failed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := both(func(c *runtime.Config) { c.MaxSendParts = maxParts }, tt.set)
			first := openaitest.Text(tt.answer)
			first.FinishReason = tt.finish
			tg, model := privateBotReplies(t, set, 2, first, openaitest.Text(`{"action":"continue"}`))
			if sent := tg.Sent(); len(sent) != 0 {
				t.Errorf("%d messages reached the chat, want none (and never over %d)", len(sent), maxParts)
			}
			st := model.stateOf(t, 2)
			// The refused text does not come back whole: the next request
			// stays within AIRI_PROMPT_MAX_TOKENS.
			var msgs []state.ChatMessage
			for _, m := range model.h.Requests()[1].Messages {
				msgs = append(msgs, state.ChatMessage{Role: m.Role, Content: m.Content})
			}
			if n := tokens.New().Request(msgs); n > planner.DefaultMaxTokens {
				t.Errorf("the next request holds %d tokens, over the budget of %d", n, planner.DefaultMaxTokens)
			}
			for _, want := range tt.told {
				if !strings.Contains(st, want) {
					t.Errorf("the model was not told %q; state:\n%.2000s", want, st)
				}
			}
			if strings.Contains(st, tt.never) {
				t.Errorf("the state says %q:\n%.2000s", tt.never, st)
			}
		})
	}
}

// TestRunRepeatedSendDeliversOnce has the model give the same send five
// times in one wake: one message reaches the chat, and the model is told
// the repeats were refused.
func TestRunRepeatedSendDeliversOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("a long run of the whole bot")
	}
	answer := strings.Replace(sendJSON("501", "Everything is fine."), "{", `{"then":"next",`, 1)
	tg, model := privateBot(t, func(c *runtime.Config) { c.MaxIterations = 5 }, 5, answer)
	if sent := tg.Sent(); len(sent) != 1 || sent[0].Text != "Everything is fine." {
		t.Errorf("sent %+v, want the message once", sent)
	}
	for n := 3; n <= 5; n++ {
		if st := model.stateOf(t, n); !strings.Contains(st, "same message") {
			t.Errorf("request %d does not tell the model the repeat was refused:\n%.2000s", n, st)
		}
	}
}
