package runtime_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tiktoken-go/tokenizer/codec"
	"go.uber.org/zap"

	"github.com/airi-go/airi/adapters/telegram"
	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/admin"
	"github.com/airi-go/airi/planner/openai"
	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/state"
)

// handlerTransport serves requests with an http.Handler in the calling
// goroutine: the fake servers speak their real HTTP protocols without a
// socket, so a whole bot runs inside a synctest bubble on virtual time.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	return rec.Result(), nil
}

// groupBot is airi run with the Telegram adapter, wired in-process to a
// fake Bot API and a fake model.
type groupBot struct {
	rt      *runtime.Bot
	m       *admin.Metrics
	cancel  context.CancelFunc
	done    chan error
	mu      sync.Mutex
	wakes   map[string]int
	skipped map[string]int
}

// startGroupBot builds the bot with the default settings, named Juni, on
// the SQLite file db; set, when not nil, changes more.
func startGroupBot(t *testing.T, tg *telegramtest.Server, model http.Handler, db string, set func(*runtime.Config)) *groupBot {
	t.Helper()
	cfg := runtime.Defaults()
	cfg.BotName = "Juni"
	if set != nil {
		set(&cfg)
	}
	log := zap.NewNop()
	mdl, err := openai.New(openai.Config{BaseURL: "http://model.test/v1", Model: "fake", Timeout: openai.DefaultTimeout,
		MaxTokens: openai.DefaultMaxTokens, HTTPClient: &http.Client{Transport: handlerTransport{model}}}, log)
	if err != nil {
		t.Fatal(err)
	}
	b := &groupBot{wakes: map[string]int{}, skipped: map[string]int{}, m: admin.NewMetrics(func() float64 { return 0 })}
	ctx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	store, err := runtime.OpenStore(ctx, runtime.StoreConfig{DBPath: db}, log, true)
	if err != nil {
		t.Fatal(err)
	}
	ad, err := telegram.New(telegram.Config{Token: tg.Token(), APIBaseURL: "http://telegram.test",
		HTTPClient: &http.Client{Transport: handlerTransport{tg}}}, store, log)
	if err != nil {
		t.Fatal(err)
	}
	p, err := prompts.Load(cfg.PromptsDir, log)
	if err != nil {
		t.Fatal(err)
	}
	b.rt, err = runtime.New(cfg, runtime.Deps{Logger: log, Model: mdl, Store: store, Prompts: p, Adapters: []runtime.Adapter{{Sender: ad}},
		OnWake:     func(_, reason string) { b.count(b.wakes, reason); b.m.Wake(reason) },
		OnSkip:     func(_, reason string) { b.count(b.skipped, reason); b.m.Skip(reason) },
		OnReaction: func(_, outcome string) { b.m.Reaction(outcome) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if t := b.rt.Budget(); t != nil {
		b.m.RegisterBudget(t, channelIDs(b.rt.Store()), time.Now)
	}
	if err := b.rt.Scheduler().Start(ctx); err != nil {
		t.Fatal(err)
	}
	b.done = make(chan error, 1)
	go func() { b.done <- ad.Run(ctx, b.rt.Inbox(telegram.Name)) }()
	return b
}

// channelIDs lists the ids of the store's channels, for the budget
// metrics, as airi run registers them.
func channelIDs(store state.Store) func() []string {
	return func() []string {
		chans, err := store.Channels(context.Background())
		if err != nil {
			return nil
		}
		ids := make([]string, len(chans))
		for i, c := range chans {
			ids[i] = c.ID
		}
		return ids
	}
}

func (b *groupBot) count(m map[string]int, reason string) {
	b.mu.Lock()
	m[reason]++
	b.mu.Unlock()
}

func (b *groupBot) counts() (wakes, skipped map[string]int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return copyCounts(b.wakes), copyCounts(b.skipped)
}

func copyCounts(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (b *groupBot) stop(t *testing.T) {
	t.Helper()
	b.cancel()
	<-b.done
	if err := b.rt.Close(context.Background()); err != nil {
		t.Error(err)
	}
}

// metricsText scrapes the bot's metrics as /metrics serves them.
func (b *groupBot) metricsText(t *testing.T) string {
	t.Helper()
	srv := admin.New(admin.Options{Metrics: b.m, Store: b.rt.Store()})
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Result().Body)
	return string(body)
}

var (
	busyGroup = telegramtest.Chat{ID: -1001000000042, Type: telegramtest.Supergroup, Title: "Night Owls"}
	busyToken = regexp.MustCompile(`q-\d+`)
)

// busyModel answers in 300 ms: a reply when the state message shows new
// messages, continue otherwise. It notes when each message token was
// first shown as new, and what the server reported as usage.
type busyModel struct {
	chat    int64
	mu      sync.Mutex
	firstAt map[string]time.Time
	seen    map[string]bool // anywhere in a request
	usage   []int
	prompt  int // prompt tokens, o200k
	enc     interface{ Count(string) (int, error) }
}

func newBusyModel(chat int64) *busyModel {
	return &busyModel{chat: chat, firstAt: map[string]time.Time{}, seen: map[string]bool{}, enc: codec.NewO200kBase()}
}

func (m *busyModel) answer(ctx context.Context, req openaitest.Request) openaitest.Reply {
	state := req.LastUser()
	m.mu.Lock()
	tokens := 0
	for _, msg := range req.Messages {
		n, _ := m.enc.Count(msg.Content)
		tokens += n
		for _, tok := range busyToken.FindAllString(msg.Content, -1) {
			m.seen[tok] = true
		}
	}
	m.prompt += tokens
	now := time.Now()
	var fresh []string
	if _, after, ok := strings.Cut(state, "New messages:"); ok {
		for _, tok := range busyToken.FindAllString(after, -1) {
			if _, ok := m.firstAt[tok]; !ok {
				m.firstAt[tok] = now
			}
			fresh = append(fresh, tok)
		}
	}
	usage := &openaitest.Usage{PromptTokens: tokens, CompletionTokens: 20}
	m.usage = append(m.usage, usage.PromptTokens+usage.CompletionTokens)
	m.mu.Unlock()
	select {
	case <-time.After(300 * time.Millisecond):
	case <-ctx.Done():
		return openaitest.Reply{Content: `{"action":"continue"}`}
	}
	if len(fresh) == 0 {
		return openaitest.Reply{Content: `{"action":"continue"}`, Usage: usage}
	}
	// Each reply differs: the runtime refuses a repeat of a recent one.
	return openaitest.Reply{Content: fmt.Sprintf(`{"action":"send_message","channelId":"%d","content":"noted, call %d"}`, m.chat, req.Call), Usage: usage}
}

// busyRun posts 120 messages from six people, one a second, every tenth
// an @mention of the bot, and returns the model's record and when each
// mention arrived.
func busyRun(t *testing.T, set func(*runtime.Config)) (*busyModel, map[string]time.Time, *groupBot, *telegramtest.Server) {
	tg := telegramtest.NewServer(telegramtest.Options{ReadAllGroupMessages: true})
	bm := newBusyModel(busyGroup.ID)
	model := openaitest.NewHandler(bm.answer)
	b := startGroupBot(t, tg, model, filepath.Join(t.TempDir(), "airi.db"), set)
	people := []string{"Mika", "Tomas", "Ana", "Lev", "Noor", "Ivo"}
	mentions := map[string]time.Time{}
	for i := 1; i <= 120; i++ {
		from := telegramtest.User{ID: int64(600 + i%6), FirstName: people[i%6]}
		text := fmt.Sprintf("q-%d did anyone see the game last night", i)
		if i%10 == 0 {
			text = fmt.Sprintf("@%s q-%d what do you think?", tg.Bot().Username, i)
			mentions[fmt.Sprintf("q-%d", i)] = time.Now()
		}
		tg.Post(telegramtest.Incoming{Chat: busyGroup, From: from, Text: text})
		time.Sleep(time.Second)
	}
	time.Sleep(30 * time.Second)
	synctest.Wait()
	return bm, mentions, b, tg
}

// TestBusyGroup is the busy group: with the default attention policy the
// bot makes at most 2 × (mentions + messages/20) model calls, shows each
// mention as new within the debounce plus a second, and the talk around
// them reaches the model in those same requests. AIRI_GROUP_MODE=all
// reproduces the earlier behaviour (a wake per burst); the test reports
// calls and prompt tokens of both.
func TestBusyGroup(t *testing.T) {
	var calls, prompt [2]int
	for i, mode := range []string{"all", ""} {
		synctest.Test(t, func(t *testing.T) {
			var set func(*runtime.Config)
			if mode != "" {
				set = func(c *runtime.Config) { c.Attention.Default.Mode = attention.Mode(mode) }
			}
			bm, mentions, b, _ := busyRun(t, set)
			defer b.stop(t)
			bm.mu.Lock()
			defer bm.mu.Unlock()
			calls[i], prompt[i] = len(bm.usage), bm.prompt
			if mode == "all" {
				return
			}
			if limit := 2 * (12 + 120/20); calls[i] > limit {
				t.Errorf("%d model calls, want at most %d", calls[i], limit)
			}
			for tok, at := range mentions {
				first, ok := bm.firstAt[tok]
				if !ok {
					t.Errorf("mention %s never shown as new", tok)
					continue
				}
				if d := first.Sub(at); d > 800*time.Millisecond+time.Second {
					t.Errorf("mention %s shown as new %v after it arrived", tok, d)
				}
			}
			for n := 1; n <= 120; n++ {
				if tok := fmt.Sprintf("q-%d", n); !bm.seen[tok] {
					t.Errorf("message %s before the last mention never reached the model", tok)
				}
			}
			wakes, skipped := b.counts()
			if wakes["addressed:mention"] != 12 || skipped["unaddressed"] != 108 {
				t.Errorf("wakes %v, skipped %v; want 12 mention wakes and 108 unaddressed messages skipped", wakes, skipped)
			}
			if text := b.metricsText(t); !strings.Contains(text, `airi_wakes_total{reason="addressed:mention"} 12`) ||
				!strings.Contains(text, `airi_wakes_skipped_total{reason="unaddressed"} 108`) {
				t.Errorf("metrics without airi_wakes_total:\n%s", text)
			}
		})
	}
	t.Logf("busy group, 120 messages: mode all %d calls, %d prompt tokens; default %d calls, %d prompt tokens (calls ×%.2f, tokens ×%.2f)",
		calls[0], prompt[0], calls[1], prompt[1], float64(calls[1])/float64(calls[0]), float64(prompt[1])/float64(prompt[0]))
	if calls[0] <= calls[1] {
		t.Errorf("mode all made %d calls, the default %d: all should wake on every burst", calls[0], calls[1])
	}
}

// TestChannelBudget sends a steady stream of mentions into a group with a
// low channel budget: what the model server reports as used never passes
// the budget by more than one call, a restart in the middle keeps the
// count, and /metrics shows the budget's use.
func TestChannelBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const budget = 20000
		tg := telegramtest.NewServer(telegramtest.Options{ReadAllGroupMessages: true})
		bm := newBusyModel(busyGroup.ID)
		model := openaitest.NewHandler(bm.answer)
		db := filepath.Join(t.TempDir(), "airi.db")
		settings := func(c *runtime.Config) { c.Budget.ChannelDaily = budget }
		ann := telegramtest.User{ID: 601, FirstName: "Ann"}
		post := func(from, to int) {
			for i := from; i <= to; i++ {
				tg.Post(telegramtest.Incoming{Chat: busyGroup, From: ann, Text: fmt.Sprintf("@%s q-%d hello?", tg.Bot().Username, i)})
				time.Sleep(10 * time.Second)
			}
		}
		b := startGroupBot(t, tg, model, db, settings)
		post(1, 10)
		synctest.Wait()
		b.stop(t)
		bm.mu.Lock()
		before := len(bm.usage)
		bm.mu.Unlock()

		b = startGroupBot(t, tg, model, db, settings)
		defer b.stop(t)
		post(11, 30)
		synctest.Wait()

		bm.mu.Lock()
		used, largest := 0, 0
		for _, u := range bm.usage {
			used += u
			largest = max(largest, u)
		}
		calls := len(bm.usage)
		bm.mu.Unlock()
		t.Logf("%d calls (%d before the restart), %d tokens reported, largest call %d, budget %d", calls, before, used, largest, budget)
		if used <= budget {
			t.Fatalf("the stream used %d tokens in %d calls: too few to reach the budget of %d", used, calls, budget)
		}
		if used > budget+largest {
			t.Errorf("the model server reported %d tokens, more than one call (%d) past the budget of %d", used, largest, budget)
		}
		if before == 0 || calls == before {
			t.Errorf("calls before the restart %d, in all %d: want calls on both sides", before, calls)
		}
		_, skipped := b.counts()
		if skipped["budget"] == 0 {
			t.Errorf("no wake refused for the budget: %v", skipped)
		}
		want := fmt.Sprintf(`airi_budget_used_tokens{scope="%d"} %d`, busyGroup.ID, used)
		if text := b.metricsText(t); !strings.Contains(text, want) || !strings.Contains(text, fmt.Sprintf(`airi_budget_limit_tokens{scope="%d"} %d`, busyGroup.ID, budget)) {
			t.Errorf("metrics without %q and the limit:\n%s", want, text)
		}
		// Each refusal is recorded: on the mentions that arrived with the
		// budget used up, or as a wake that made no call.
		ctx := context.Background()
		refused, err := b.rt.Store().SkippedWakes(ctx, state.TickFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if d := decisions(storedEvents(t, b)); d["budget"]+len(refused) == 0 || d[""] != 0 {
			t.Errorf("recorded decisions %v and %d refused wakes; want each message decided and the budget's refusals", d, len(refused))
		}
		for _, w := range refused {
			if w.Reason != "budget" || w.Trigger == "" {
				t.Errorf("refused wake %+v: want a trigger and the reason budget", w)
			}
		}
		// The mentions refused stay unread, to be answered when the day rolls over.
		counts, err := b.rt.Store().UnreadCounts(context.Background())
		if err != nil || counts[fmt.Sprint(busyGroup.ID)] == 0 {
			t.Errorf("unread after the budget ran out: %v, %v; want the refused mentions", counts, err)
		}
	})
}

// TestTwoBots lets another bot talk to ours (AIRI_IGNORE_BOTS=false): ours
// answers it at most AIRI_BOT_REPLIES times in a row; by default it does not
// answer at all.
func TestTwoBots(t *testing.T) {
	for _, tt := range []struct {
		name     string
		settings func(*runtime.Config)
		want     int
	}{
		{"allowed", func(c *runtime.Config) { c.Attention.Default.IgnoreBots = false }, 3},
		{"ignored by default", nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tg := telegramtest.NewServer(telegramtest.Options{ReadAllGroupMessages: true})
				bm := newBusyModel(busyGroup.ID)
				b := startGroupBot(t, tg, openaitest.NewHandler(bm.answer), filepath.Join(t.TempDir(), "airi.db"), tt.settings)
				defer b.stop(t)
				echo := telegramtest.User{ID: 909, IsBot: true, FirstName: "Echo", Username: "echo_bot"}
				// The other bot answers every message of ours, ten times over.
				for i := 1; i <= 10; i++ {
					tg.Post(telegramtest.Incoming{Chat: busyGroup, From: echo, Text: fmt.Sprintf("@%s q-%d ping", tg.Bot().Username, i)})
					time.Sleep(10 * time.Second)
					synctest.Wait()
				}
				if got := len(tg.Sent()); got != tt.want {
					t.Errorf("our bot answered the other bot %d times, want %d", got, tt.want)
				}
				_, skipped := b.counts()
				if skipped["bot"] != 10-tt.want {
					t.Errorf("skipped %v, want %d bot messages skipped", skipped, 10-tt.want)
				}
				events := storedEvents(t, b)
				if d := decisions(events); d["bot"] != 10-tt.want {
					t.Errorf("recorded decisions %v, want %d bot messages skipped", d, 10-tt.want)
				}
				for _, e := range events {
					if !e.FromBot {
						t.Errorf("message %d of the other bot stored without fromBot", e.ID)
					}
				}
			})
		})
	}
}

// TestSenderFlood: one sender posts 200 mentions in a minute; the bot is
// woken no more than AIRI_SENDER_RATE allows and all 200 are stored.
func TestSenderFlood(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg := telegramtest.NewServer(telegramtest.Options{ReadAllGroupMessages: true})
		bm := newBusyModel(busyGroup.ID)
		b := startGroupBot(t, tg, openaitest.NewHandler(bm.answer), filepath.Join(t.TempDir(), "airi.db"), nil)
		defer b.stop(t)
		flood := telegramtest.User{ID: 666, FirstName: "Spam"}
		for i := 1; i <= 200; i++ {
			tg.Post(telegramtest.Incoming{Chat: busyGroup, From: flood, Text: fmt.Sprintf("@%s q-%d", tg.Bot().Username, i)})
			time.Sleep(300 * time.Millisecond)
		}
		synctest.Wait()
		wakes, skipped := b.counts()
		total := 0
		for _, n := range wakes {
			total += n
		}
		if total > 20 || skipped["sender-rate"] != 180 {
			t.Errorf("wakes %v, skipped %v; want at most 20 wakes and 180 messages past the rate", wakes, skipped)
		}
		events := storedEvents(t, b)
		if len(events) != 200 {
			t.Errorf("%d messages stored, want 200", len(events))
		}
		if d := decisions(events); d["sender-rate"] != 180 || d["addressed:mention"] != 20 {
			t.Errorf("recorded decisions %v, want 180 sender-rate and 20 addressed:mention", d)
		}
	})
}

// TestBotMessagesAfterRestart: mentions from another bot, ignored by
// default, stay unread; after a restart the policy reads them again and
// still takes them for a bot's, so the bot answers none of them.
func TestBotMessagesAfterRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg := telegramtest.NewServer(telegramtest.Options{ReadAllGroupMessages: true})
		bm := newBusyModel(busyGroup.ID)
		db := filepath.Join(t.TempDir(), "airi.db")
		b := startGroupBot(t, tg, openaitest.NewHandler(bm.answer), db, nil)
		echo := telegramtest.User{ID: 909, IsBot: true, FirstName: "Echo", Username: "echo_bot"}
		for i := 1; i <= 3; i++ {
			tg.Post(telegramtest.Incoming{Chat: busyGroup, From: echo, Text: fmt.Sprintf("@%s q-%d ping", tg.Bot().Username, i)})
			time.Sleep(10 * time.Second)
		}
		synctest.Wait()
		b.stop(t)

		b = startGroupBot(t, tg, openaitest.NewHandler(bm.answer), db, nil)
		defer b.stop(t)
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := len(tg.Sent()); got != 0 {
			t.Errorf("the bot answered the other bot %d times after a restart, want none", got)
		}
		if d := decisions(storedEvents(t, b)); d["bot"] != 3 {
			t.Errorf("recorded decisions %v, want 3 bot", d)
		}
	})
}

// storedEvents returns the incoming messages stored for the busy group.
func storedEvents(t *testing.T, b *groupBot) []state.Message {
	t.Helper()
	events, err := b.rt.Store().Events(context.Background(), state.TickFilter{ChannelID: fmt.Sprint(busyGroup.ID)})
	if err != nil {
		t.Fatalf("stored events: %v", err)
	}
	return events
}

// decisions counts the recorded attention decisions of messages.
func decisions(ms []state.Message) map[string]int {
	out := map[string]int{}
	for _, m := range ms {
		out[m.Decision]++
	}
	return out
}
