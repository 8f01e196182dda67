package runtime_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/internal/tokens"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/runtime/runtimetest"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// stepClock moves only when the test moves it.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *stepClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// numberingAdapter stands for a platform adapter: it numbers what it sends.
type numberingAdapter struct {
	name string
	next int
}

func (a *numberingAdapter) Name() string { return a.name }

func (a *numberingAdapter) Send(_ context.Context, _ state.Outgoing) (string, error) {
	a.next++
	return strconv.Itoa(a.next), nil
}

// memBot is the bot on a SQLite file, driven by hand.
type memBot struct {
	t     *testing.T
	ctx   context.Context
	clock *stepClock
	rt    *runtime.Bot
	store *sqlite.Store
	ids   *int
}

// openMemBot builds the bot with the default settings and no pause
// between calls; set, when not nil, changes more.
func openMemBot(t *testing.T, db string, clock *stepClock, model *runtimetest.Model, ids *int, set func(*runtime.Config)) *memBot {
	t.Helper()
	ctx := context.Background()
	cfg := runtime.Defaults()
	cfg.ContinueDelay = 0
	if set != nil {
		set(&cfg)
	}
	log := zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel))
	store, err := sqlite.Open(ctx, db, log)
	if err != nil {
		t.Fatal(err)
	}
	p, err := prompts.Load(cfg.PromptsDir, log)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := runtime.New(cfg, runtime.Deps{Logger: log,
		Model: model, Store: store, Prompts: p, Adapters: []runtime.Adapter{{Sender: &numberingAdapter{name: "telegram", next: 100000 + *ids*10}}},
		Now: clock.Now, OnTick: func(state.Tick) { clock.add(time.Second) },
	})
	if err != nil {
		t.Fatal(err)
	}
	b := &memBot{t: t, ctx: ctx, clock: clock, rt: rt, store: store, ids: ids}
	t.Cleanup(b.close)
	return b
}

func (b *memBot) close() { _ = b.rt.Close(context.Background()) }

// say delivers a message from a person and runs the wake it starts.
func (b *memBot) say(ch state.Channel, from, text string) {
	b.t.Helper()
	*b.ids++
	b.clock.add(30 * time.Second)
	msg := state.Message{PlatformID: fmt.Sprint(*b.ids), SenderID: strings.ToLower(from), SenderName: from, Content: text, Time: b.clock.Now()}
	if err := b.rt.Inbox("telegram").Deliver(b.ctx, ch, msg); err != nil {
		b.t.Fatal(err)
	}
	b.clock.add(time.Second)
	b.rt.Scheduler().Wake(b.ctx, ch.ID, "message")
}

func (b *memBot) notes() []state.Note {
	b.t.Helper()
	ns, err := b.store.Notes(b.ctx, state.NoteFilter{})
	if err != nil {
		b.t.Fatal(err)
	}
	return ns
}

var (
	memDM    = state.Channel{ID: "4711", Platform: "telegram", Title: "Ada"}
	memGroup = state.Channel{ID: "-100777", Platform: "telegram", Group: true, Title: "Harbour"}
	memOther = state.Channel{ID: "-100888", Platform: "telegram", Group: true, Title: "Elsewhere"}
)

// TestMemoryAcceptance plays the bot's part of the memory contract: a
// fact told in a direct chat is there 40 messages later and after a
// restart, never in a group unless shareable and its person is in the
// group's window; a channel note stays in its channel; bad input stores
// nothing; a deleted note and a forgotten person are gone from the next
// request. (cmd/airi's TestMemoryCommandsOnTheBot runs airi memory delete
// and airi forget --user against the bot.)
func TestMemoryAcceptance(t *testing.T) {
	db := filepath.Join(t.TempDir(), "airi.db")
	clock := &stepClock{t: time.Date(2026, 3, 14, 20, 0, 0, 0, time.UTC)}
	model := &runtimetest.Model{}
	ids := 0
	b := openMemBot(t, db, clock, model, &ids, nil)

	model.Queue(memDM.ID, `{"action":"remember","scope":"user","content":"Ada is vegetarian"}`)
	b.say(memDM, "Ada", "I'm vegetarian, by the way")
	ns := b.notes()
	if len(ns) != 1 || ns[0].Subject != "ada" || ns[0].Shareable || ns[0].Tick == 0 {
		t.Fatalf("notes after remember: %+v", ns)
	}
	for i := range 40 {
		b.say(memDM, "Ada", fmt.Sprintf("message %d", i))
	}
	last := model.Last(t, memDM.ID)
	runtimetest.Contains(t, "direct chat 40 messages later", last, true, "Ada is vegetarian")
	runtimetest.Contains(t, "direct chat 40 messages later", last, false, "by the way")

	model.Queue(memGroup.ID, `{"action":"remember","scope":"channel","content":"quiz night is on fridays"}`)
	b.say(memGroup, "Bo", "quiz night is fridays now, juni")
	b.say(memGroup, "Ada", "hi all")
	model.Queue(memDM.ID, `{"action":"remember","scope":"user","content":"Ada plays the cello","shareable":true}`)
	b.say(memDM, "Ada", "I play the cello, you can tell anyone")
	b.say(memGroup, "Ada", "anyone for a concert?")
	runtimetest.Contains(t, "group with Ada in its window", model.Last(t, memGroup.ID), true, "Ada plays the cello", "quiz night is on fridays")
	b.say(memOther, "Bo", "hello other group")
	runtimetest.Contains(t, "group without Ada", model.Last(t, memOther.ID), false, "cello", "quiz night")
	runtimetest.Contains(t, "direct chat", model.Last(t, memDM.ID), false, "quiz night")
	for _, ch := range []string{memGroup.ID, memOther.ID} {
		for i, req := range model.Requests(ch) {
			if strings.Contains(runtimetest.JoinRequest(req), "Ada is vegetarian") {
				t.Errorf("request %d of group %s shows the private note", i, ch)
			}
		}
	}

	// Bad input: a clear result for the model, nothing stored.
	before := len(b.notes())
	for _, tt := range []struct{ answer, result string }{
		{`{"action":"remember","scope":"planet","content":"x"}`, "remember.scope must be one of"},
		{`{"action":"remember","scope":"global","content":"   "}`, "nothing remembered: the content is empty"},
		{`{"action":"remember","scope":"global","content":"` + strings.Repeat("long ", 101) + `"}`, "remember.content must be at most 500 characters"},
		{`{"action":"remember","scope":"user","about":"Zed","content":"Zed likes tea"}`, `nothing remembered: no one called "Zed"`},
	} {
		model.Queue(memDM.ID, tt.answer)
		b.say(memDM, "Ada", "noted?")
		rs := model.Requests(memDM.ID)
		// The answer's result is in the state message of the next call.
		if got := rs[len(rs)-1][len(rs[len(rs)-1])-1].Content; !strings.Contains(got, tt.result) {
			t.Errorf("after %s the model was told:\n%s\nwant %q", tt.answer, got, tt.result)
		}
	}
	if n := len(b.notes()); n != before {
		t.Errorf("bad input stored notes: %d, want %d", n, before)
	}

	// A restart: the real store reopened.
	b.close()
	b = openMemBot(t, db, clock, model, &ids, nil)
	b.say(memDM, "Ada", "morning")
	runtimetest.Contains(t, "direct chat after a restart", model.Last(t, memDM.ID), true, "Ada is vegetarian", "Ada plays the cello")

	// A deleted note is gone from the next request.
	for _, n := range b.notes() {
		if n.Text == "Ada is vegetarian" {
			if err := b.store.DeleteNote(b.ctx, n.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	b.say(memDM, "Ada", "still there?")
	runtimetest.Contains(t, "after deleting the note", model.Last(t, memDM.ID), false, "Ada is vegetarian")
	runtimetest.Contains(t, "after deleting the note", model.Last(t, memDM.ID), true, "Ada plays the cello")

	// A forgotten person's notes and messages are gone.
	if f, err := b.store.ForgetUser(b.ctx, "ada"); err != nil || f.Notes != 1 || !slices.Contains(f.Channels, memDM.ID) {
		t.Fatalf("forget ada: %+v, %v", f, err)
	}
	b.say(memGroup, "Bo", "where did everyone go")
	last = model.Last(t, memGroup.ID)
	runtimetest.Contains(t, "group after forgetting Ada", last, false, "cello", "anyone for a concert", "hi all")
	runtimetest.Contains(t, "group after forgetting Ada", last, true, "quiz night is on fridays", "where did everyone go")
	if h, _, err := b.store.History(b.ctx, memDM.ID, 0); err != nil || len(h) != 0 {
		t.Errorf("direct chat history after forget: %d messages, %v", len(h), err)
	}
}

// TestMemoryPrefixReuse measures, over a 60-message direct chat in which
// memory changes three times, how much of each request repeats the start
// of the previous one (what a provider's prompt cache reuses): with the
// memory section where it is (in the system message), moved to the end of
// the state message for comparison, and the same chat without memory
// changes. As in planner's measurement, the target is checked on a
// persona as long as the reference bot's; the compact default persona
// makes the per-tick tail weigh more.
func TestMemoryPrefixReuse(t *testing.T) {
	long := t.TempDir()
	writeLongPersona(t, long)
	for _, tc := range []struct {
		name, dir string
		min       float64
	}{
		// About 115 tokens of the default persona's 890 change per call.
		{"default persona", "", 0.86},
		{"reference-length persona", long, 0.90},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withMemory := memoryChat(t, tc.dir, true)
			without := memoryChat(t, tc.dir, false)
			inSystem := averageShare(withMemory)
			inState := averageShare(moveMemoryToState(t, withMemory))
			t.Logf("%d requests; prefix reuse with memory in the system message %.1f%%, moved to the end of the state message %.1f%%; the same chat without memory changes %.1f%%",
				len(withMemory), 100*inSystem, 100*inState, 100*averageShare(without))
			if inSystem < tc.min {
				t.Errorf("average prefix reuse %.3f, want at least %.2f", inSystem, tc.min)
			}
			if inSystem < inState {
				t.Errorf("memory in the system message reuses less (%.3f) than in the state message (%.3f)", inSystem, inState)
			}
		})
	}
}

// memoryChat plays 60 messages of Ada in a direct chat; with changes, the
// bot remembers twice and rewrites a note once. It returns the requests.
func memoryChat(t *testing.T, promptsDir string, changes bool) [][]state.ChatMessage {
	t.Helper()
	db := filepath.Join(t.TempDir(), "airi.db")
	clock := &stepClock{t: time.Date(2026, 3, 14, 20, 0, 0, 0, time.UTC)}
	model := &runtimetest.Model{}
	ids := 0
	b := openMemBot(t, db, clock, model, &ids, func(c *runtime.Config) { c.PromptsDir = promptsDir })
	defer b.close()
	// The bot already knows a few things.
	for _, text := range []string{"the harbour opens at six", "the night ferry leaves at 22:00", "fog is logged as \"fog\""} {
		if _, _, err := b.store.SaveNote(b.ctx, state.Note{Scope: state.ScopeGlobal, Text: text}, state.NoteLimits{}); err != nil {
			t.Fatal(err)
		}
	}
	script := map[int]string{
		10: `{"action":"remember","scope":"user","content":"Ada is vegetarian"}`,
		30: `{"action":"remember","scope":"user","content":"Ada plays the cello on thursdays"}`,
		50: `{"action":"remember","scope":"user","content":"Ada is vegan now","id":"4"}`,
	}
	for i := range 60 {
		if a, ok := script[i]; ok && changes {
			model.Queue(memDM.ID, a)
		}
		b.say(memDM, "Ada", fmt.Sprintf("message %d: %s", i, strings.Repeat("tides and tea ", 1+i%4)))
	}
	if changes {
		if ns := b.notes(); len(ns) != 5 || ns[3].ID != 4 || ns[3].Text != "Ada is vegan now" {
			t.Fatalf("notes: %+v", ns)
		}
	}
	return model.Requests(memDM.ID)
}

// writeLongPersona writes a persona as long as the reference bot's
// (about 1,750 o200k tokens) into dir.
func writeLongPersona(t *testing.T, dir string) {
	t.Helper()
	tok := tokens.New()
	var body strings.Builder
	for tok.Count(body.String()) < 1751 {
		body.WriteString("You are Juni, and you keep a logbook of every clear night since the ferry years, with notes on the tides, the moths at the lamp and the tea that got you through. ")
	}
	if err := os.WriteFile(filepath.Join(dir, "persona.md"), []byte("---\nsection: persona\nname: Juni\n---\n"+body.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func averageShare(reqs [][]state.ChatMessage) float64 {
	sum := 0.0
	for i := 1; i < len(reqs); i++ {
		sum += planner.PrefixShare(reqs[i-1], reqs[i])
	}
	return sum / float64(len(reqs)-1)
}

// moveMemoryToState rewrites requests as they would be with the memory
// section at the end of the state message instead of in the system message.
func moveMemoryToState(t *testing.T, reqs [][]state.ChatMessage) [][]state.ChatMessage {
	t.Helper()
	out := make([][]state.ChatMessage, len(reqs))
	for i, r := range reqs {
		r = append([]state.ChatMessage(nil), r...)
		sys := r[0].Content
		start := strings.Index(sys, "# Memory\n")
		if start < 0 {
			t.Fatalf("request %d has no memory section", i)
		}
		end := strings.Index(sys[start:], "\n\n")
		if end < 0 {
			end = len(sys) - start
		}
		mem := sys[start : start+end]
		r[0].Content = sys[:start] + strings.TrimPrefix(sys[start+end:], "\n\n")
		r[len(r)-1].Content += "\n\n" + mem
		out[i] = r
	}
	return out
}
