package runtime

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/adapters/satori"
	"github.com/airi-go/airi/adapters/satori/satoritest"
	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/media"
	"github.com/airi-go/airi/planner/openai"
	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// The tests of this file run the wired bot with a vision model and a
// speech model, all three served by one fake endpoint, against the fake
// Bot API: what the platform sent, what was fetched, and what reached the
// main model's requests.

const (
	visionModel = "vision-1"
	speechModel = "whisper-1"
	catSeen     = "a grey cat asleep on a keyboard"
)

// mediaBot is a chats bot whose fake endpoint also describes images and
// transcribes speech.
type mediaBot struct {
	*chatsBot
	tg *telegramtest.Server
	p  *telegramPoller
}

// mainRequests are the requests of the main model (not the vision one).
func (m *mediaBot) mainRequests() []openaitest.Request {
	var out []openaitest.Request
	for _, r := range m.model.Requests() {
		if r.Model != visionModel {
			out = append(out, r)
		}
	}
	return out
}

func (m *mediaBot) visionCalls() int { return len(m.model.Requests()) - len(m.mainRequests()) }

// fetches counts the getFile calls and downloads of every file.
func (m *mediaBot) fetches() (getFile, downloads int) {
	for _, f := range m.tg.Files() {
		getFile += f.GetFile
		downloads += f.Downloads
	}
	return getFile, downloads
}

func newMediaBot(t *testing.T, cfg Config, channel string) *mediaBot {
	t.Helper()
	tg, p := newTelegram(t)
	log := zaptest.NewLogger(t)
	store, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "airi.db"), log)
	if err != nil {
		t.Fatal(err)
	}
	model := openaitest.NewServer(t, func(_ context.Context, r openaitest.Request) openaitest.Reply {
		if r.Model == visionModel {
			if imgs := r.Images(); len(imgs) != 1 || len(imgs[0].Data) == 0 {
				return openaitest.Status(400, "")
			}
			return openaitest.Text(catSeen)
		}
		return openaitest.Text(`{"action":"send_message","channelId":"` + channel + `","content":"nice (` + string(rune('0'+r.Call%10)) + `)"}`)
	}, openaitest.WithTranscriber(func(tr openaitest.Transcription) (string, openaitest.Reply) {
		return "see you at five", openaitest.Reply{}
	}))
	main := openai.Config{BaseURL: model.URL(), APIKey: "k", Model: "m", Timeout: 10 * time.Second}
	client, err := openai.New(main, log)
	if err != nil {
		t.Fatal(err)
	}
	vision, speech, err := MediaModels(main, Endpoint{Model: visionModel}, Endpoint{Model: speechModel}, log)
	if err != nil {
		t.Fatal(err)
	}
	clock := p.clock
	cfg.Debounce = 2 * time.Second
	cfg.MaxIterations = 3
	b, err := New(cfg, Deps{Store: store, Model: client, Adapters: []Adapter{p.adapter(store)}, Now: clock.Now, Logger: log,
		Vision: vision, Speech: speech})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return &mediaBot{chatsBot: &chatsBot{t: t, b: b, clock: clock, model: model}, tg: tg, p: p}
}

func TestPhotoIsDescribedOnce(t *testing.T) {
	m := newMediaBot(t, Config{}, "501")
	m.tg.Post(telegramtest.Incoming{From: ada, Media: "photo", Caption: "my cat", FileID: "cat-photo", UniqueID: "cat-u"})
	m.p.poll(m.b)
	m.runDue(time.Minute)
	reqs := m.mainRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d main model calls, want 1", len(reqs))
	}
	if text := requestText(reqs[0]); !strings.Contains(text, "[photo: "+catSeen+"] my cat") {
		t.Fatalf("the request does not carry the description:\n%s", text)
	}
	if got, dl := m.fetches(); got != 1 || dl != 1 || m.visionCalls() != 1 {
		t.Fatalf("getFile %d, downloads %d, vision calls %d; want 1 each", got, dl, m.visionCalls())
	}

	// The same photo again: no download, no vision call, and the
	// history still shows the first one described.
	m.clock.add(time.Minute)
	m.tg.Post(telegramtest.Incoming{From: ada, Media: "photo", Caption: "again", FileID: "cat-photo", UniqueID: "cat-u"})
	m.p.poll(m.b)
	m.runDue(time.Minute)
	reqs = m.mainRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d main model calls, want 2", len(reqs))
	}
	text := requestText(reqs[1])
	if strings.Count(text, "[photo: "+catSeen+"]") != 2 || !strings.Contains(text, "] again") {
		t.Fatalf("second request:\n%s", text)
	}
	if got, dl := m.fetches(); got != 1 || dl != 1 || m.visionCalls() != 1 {
		t.Fatalf("after the same photo again: getFile %d, downloads %d, vision calls %d; want 1 each", got, dl, m.visionCalls())
	}
	for _, r := range reqs {
		if len(r.Images()) != 0 {
			t.Error("describe mode sent an image to the main model")
		}
	}
}

func TestPhotoInline(t *testing.T) {
	m := newMediaBot(t, Config{Media: media.Config{Mode: media.ModeInline}}, "501")
	m.tg.Post(telegramtest.Incoming{From: ada, Media: "photo", Caption: "my cat"})
	m.p.poll(m.b)
	m.runDue(time.Minute)
	reqs := m.mainRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d main model calls, want 1", len(reqs))
	}
	imgs := reqs[0].Images()
	if len(imgs) != 1 || imgs[0].Mime != "image/png" || len(imgs[0].Data) == 0 {
		t.Fatalf("images of the request = %+v", imgs)
	}
	if last := reqs[0].Messages[len(reqs[0].Messages)-1]; len(last.Images) != 1 {
		t.Error("the image is not part of the message that carried it (the state message)")
	}
	if m.visionCalls() != 0 {
		t.Errorf("inline made %d vision calls", m.visionCalls())
	}
}

func TestVoiceNoteIsTranscribedOnce(t *testing.T) {
	m := newMediaBot(t, Config{}, "501")
	m.tg.Post(telegramtest.Incoming{From: ada, Media: "voice", Duration: 12, File: []byte("OggS voice"), FileID: "v1", UniqueID: "v1u"})
	m.p.poll(m.b)
	m.runDue(time.Minute)
	m.clock.add(time.Minute)
	m.tg.Post(telegramtest.Incoming{From: ada, Text: "did you get it?"})
	m.p.poll(m.b)
	m.runDue(time.Minute)
	reqs := m.mainRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d main calls, want 2", len(reqs))
	}
	for i, r := range reqs {
		if text := requestText(r); !strings.Contains(text, "[voice 0:12: “see you at five”]") {
			t.Errorf("request %d lacks the transcript:\n%s", i, text)
		}
	}
	if n := len(m.model.Transcriptions()); n != 1 {
		t.Errorf("%d transcriptions, want 1", n)
	}
	if tr := m.model.Transcriptions(); len(tr) == 1 && (tr[0].Model != speechModel || string(tr[0].Audio) != "OggS voice") {
		t.Errorf("transcription = %+v", tr[0])
	}
}

func TestLargeDocumentIsNotFetched(t *testing.T) {
	m := newMediaBot(t, Config{}, "501")
	m.tg.Post(telegramtest.Incoming{From: ada, Media: "document", FileName: "backup.zip", FileSize: 30 << 20, Caption: "all of it"})
	m.p.poll(m.b)
	m.runDue(time.Minute)
	reqs := m.mainRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d main calls, want 1", len(reqs))
	}
	if text := requestText(reqs[0]); !strings.Contains(text, "[document backup.zip, 30.0 MB: not fetched, 30.0 MB is over the 10.0 MB limit] all of it") {
		t.Fatalf("request:\n%s", text)
	}
	if got, dl := m.fetches(); got != 0 || dl != 0 {
		t.Errorf("getFile %d, downloads %d for a file over the limit", got, dl)
	}
}

func TestPhotoOverBudgetGetsAPlaceholder(t *testing.T) {
	m := newMediaBot(t, Config{Budget: budget.Config{ChannelDaily: 10000}}, "501")
	// Most of the chat's budget is spent already today.
	day := m.b.Budget().Day(m.clock.Now())
	if _, err := m.b.store.AddTokens(context.Background(), day, "501", 9000); err != nil {
		t.Fatal(err)
	}
	m.tg.Post(telegramtest.Incoming{From: ada, Media: "photo", Caption: "my cat"})
	m.p.poll(m.b)
	m.runDue(time.Minute)
	reqs := m.mainRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d main calls, want 1", len(reqs))
	}
	if text := requestText(reqs[0]); !strings.Contains(text, "[photo: not looked at, today's token budget is spent] my cat") {
		t.Fatalf("request:\n%s", text)
	}
	if m.visionCalls() != 0 {
		t.Errorf("%d vision calls over budget", m.visionCalls())
	}
}

func TestSatoriForeignImageIsNotFetched(t *testing.T) {
	var fetched []string
	srv := satoritest.NewServer(satoritest.Options{})
	t.Cleanup(srv.Close)
	a, err := satori.New(satori.Config{WSURL: srv.WSURL(), PingInterval: time.Hour, HTTPTimeout: 5 * time.Second}, nil, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	log := zaptest.NewLogger(t)
	store, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "airi.db"), log)
	if err != nil {
		t.Fatal(err)
	}
	model := openaitest.NewServer(t, func(_ context.Context, r openaitest.Request) openaitest.Reply {
		if r.Model == visionModel {
			fetched = append(fetched, "vision")
			return openaitest.Text(catSeen)
		}
		return openaitest.Text(`{"action":"send_message","channelId":"private:u1","content":"ok"}`)
	})
	main := openai.Config{BaseURL: model.URL(), APIKey: "k", Model: "m", Timeout: 10 * time.Second}
	client, _ := openai.New(main, log)
	vision, _, err := MediaModels(main, Endpoint{Model: visionModel}, Endpoint{}, log)
	if err != nil {
		t.Fatal(err)
	}
	clock := &chatsClock{now: chatsStart}
	b, err := New(Config{Debounce: 2 * time.Second, MaxIterations: 3}, Deps{Store: store, Model: client, Adapters: []Adapter{{Sender: a}},
		Now: clock.Now, Logger: log, Vision: vision})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close(context.Background()) })
	c := &chatsBot{t: t, b: b, clock: clock, model: model}
	n := &notifyInbox{in: b.Inbox(satori.Name), done: make(chan struct{}, 16)}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- a.Run(ctx, n) }()
	t.Cleanup(func() { cancel(); <-stopped })
	<-a.Ready()
	srv.PushMessage(satoritest.Message{ID: "m1", ChannelID: "private:u1", Direct: true, UserID: "u1", UserName: "Ada",
		Content: `look <img src="http://169.254.169.254/latest/meta-data/"/>`})
	n.wait(t, 1)
	c.runDue(time.Minute)
	reqs := model.Requests()
	if len(reqs) != 1 || len(fetched) != 0 {
		t.Fatalf("%d calls (%d vision), want 1 main call and no vision call", len(reqs), len(fetched))
	}
	if text := requestText(reqs[0]); !strings.Contains(text, "[photo: not fetched, the file is not on the chat's own server]") || !strings.Contains(text, "look") {
		t.Fatalf("request:\n%s", text)
	}
	msgs, _ := store.Unread(context.Background(), "private:u1", 0)
	hist, _, _ := store.History(context.Background(), "private:u1", 10)
	if len(msgs)+len(hist) == 0 {
		t.Fatal("the message was lost")
	}
}

func TestGroupChatterFetchesNothing(t *testing.T) {
	cfg := Config{Attention: attention.Policy{Default: attention.Defaults()}}
	cfg.Attention.Default.Mode = attention.ModeAddressed
	m := newMediaBot(t, cfg, "-100777")
	group := telegramtest.Chat{ID: -100777, Type: telegramtest.Supergroup, Title: "Cats"}
	bo := telegramtest.User{ID: 502, FirstName: "Bo"}
	for i := range 100 {
		from := ada
		if i%2 == 1 {
			from = bo
		}
		m.tg.Post(telegramtest.Incoming{Chat: group, From: from, Media: "photo", Caption: "another one"})
	}
	m.p.poll(m.b)
	m.runDue(time.Hour)
	if got, dl := m.fetches(); got != 0 || dl != 0 || m.model.Calls() != 0 {
		t.Fatalf("100 photos of chatter: getFile %d, downloads %d, model calls %d; want none", got, dl, m.model.Calls())
	}
	stored, err := m.b.store.Unread(context.Background(), "-100777", 0)
	if err != nil || len(stored) != 100 || len(stored[0].Media) != 1 || stored[0].Media[0].Kind != state.MediaPhoto {
		t.Fatalf("stored %d messages (%v), want 100 photos", len(stored), err)
	}
}
