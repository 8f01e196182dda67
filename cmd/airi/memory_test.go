package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/runtime/runtimetest"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// memBot is the real runtime on a SQLite file, driven by hand.
type memBot struct {
	t     *testing.T
	ctx   context.Context
	db    string
	clock *recClock
	model *runtimetest.Model
	rt    *runtime.Bot
	store *sqlite.Store
	ids   *int
}

func openMemBot(t *testing.T, db string, clock *recClock, model *runtimetest.Model, ids *int, env ...string) *memBot {
	t.Helper()
	ctx := context.Background()
	vars := map[string]string{"AIRI_CONTINUE_DELAY": "0s"}
	for i := 0; i+1 < len(env); i += 2 {
		vars[env[i]] = env[i+1]
	}
	cfg, err := parseConfig(vars)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBPath = db
	log := zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel))
	// Without the lock: the memory commands of the test open the
	// database between the bot's steps.
	store, err := sqlite.OpenShared(ctx, db, log)
	if err != nil {
		t.Fatal(err)
	}
	p, err := prompts.Load(cfg.PromptsDir, log)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := runtime.New(cfg.runtime(), runtime.Deps{Logger: log,
		Model: model, Store: store, Prompts: p, Adapters: []runtime.Adapter{{Sender: &idAdapter{name: "telegram", next: 100000 + *ids*10}}},
		Now: clock.Now, OnTick: func(state.Tick) { clock.add(time.Second) },
	})
	if err != nil {
		t.Fatal(err)
	}
	b := &memBot{t: t, ctx: ctx, db: db, clock: clock, model: model, rt: rt, store: store, ids: ids}
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

// airi runs a command of the binary against the bot's database.
func (b *memBot) airi(args ...string) (string, string, int) {
	b.t.Helper()
	var out, errOut bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(k string) string {
		if k == "DB_PATH" {
			return b.db
		}
		return ""
	}}
	code := a.run(b.ctx, args)
	return out.String(), errOut.String(), code
}

var (
	memDM    = state.Channel{ID: "4711", Platform: "telegram", Title: "Ada"}
	memGroup = state.Channel{ID: "-100777", Platform: "telegram", Group: true, Title: "Harbour"}
)

// TestMemoryCommandsOnTheBot runs the operator's memory commands against
// the database of a bot between its steps: airi memory delete and airi
// forget --user take effect on the bot's next request. (The rest of the
// memory contract is runtime's TestMemoryAcceptance.)
func TestMemoryCommandsOnTheBot(t *testing.T) {
	db := filepath.Join(t.TempDir(), "airi.db")
	clock := &recClock{t: time.Date(2026, 3, 14, 20, 0, 0, 0, time.UTC)}
	model := &runtimetest.Model{}
	ids := 0
	b := openMemBot(t, db, clock, model, &ids)

	model.Queue(memDM.ID, `{"action":"remember","scope":"user","content":"Ada is vegetarian"}`)
	b.say(memDM, "Ada", "I'm vegetarian, by the way")
	model.Queue(memGroup.ID, `{"action":"remember","scope":"channel","content":"quiz night is on fridays"}`)
	b.say(memGroup, "Bo", "quiz night is fridays now, juni")
	b.say(memGroup, "Ada", "hi all")
	model.Queue(memDM.ID, `{"action":"remember","scope":"user","content":"Ada plays the cello","shareable":true}`)
	b.say(memDM, "Ada", "I play the cello, you can tell anyone")
	b.say(memGroup, "Ada", "anyone for a concert?")
	runtimetest.Contains(t, "group with Ada in its window", model.Last(t, memGroup.ID), true, "Ada plays the cello", "quiz night is on fridays")

	// airi memory delete removes the note from the next request.
	var veg int64
	for _, n := range b.notes() {
		if n.Text == "Ada is vegetarian" {
			veg = n.ID
		}
	}
	out, errOut, code := b.airi("memory", "delete", fmt.Sprint(veg))
	if code != exitOK || out != fmt.Sprintf("deleted note %d\n", veg) {
		t.Fatalf("memory delete: %d %q %q", code, out, errOut)
	}
	b.say(memDM, "Ada", "still there?")
	runtimetest.Contains(t, "after memory delete", model.Last(t, memDM.ID), false, "Ada is vegetarian")
	runtimetest.Contains(t, "after memory delete", model.Last(t, memDM.ID), true, "Ada plays the cello")

	// airi forget --user removes the person's notes and messages.
	out, errOut, code = b.airi("forget", "--user", "ada")
	if code != exitOK || !strings.Contains(out, "forgot user ada: 1 note(s)") || !strings.Contains(out, "direct chat(s) 4711") {
		t.Fatalf("forget --user: %d %q %q", code, out, errOut)
	}
	b.say(memGroup, "Bo", "where did everyone go")
	last := model.Last(t, memGroup.ID)
	runtimetest.Contains(t, "group after forget --user", last, false, "cello", "anyone for a concert", "hi all")
	runtimetest.Contains(t, "group after forget --user", last, true, "quiz night is on fridays", "where did everyone go")
	if h, _, err := b.store.History(b.ctx, memDM.ID, 0); err != nil || len(h) != 0 {
		t.Errorf("direct chat history after forget: %d messages, %v", len(h), err)
	}
}

// runAiri runs a command of the binary against the SQLite file db.
func runAiri(t *testing.T, db, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := &app{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, getenv: func(k string) string {
		if k == "DB_PATH" {
			return db
		}
		return ""
	}}
	code := a.run(context.Background(), args)
	return out.String(), errOut.String(), code
}

func TestMemoryCommands(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.db")
	ctx := context.Background()
	s, err := sqlite.Open(ctx, src, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	notes := []state.Note{
		{Scope: state.ScopeGlobal, Text: "the harbour opens at six"},
		{Scope: state.ScopeGlobal, Text: `"quoted" and` + "\ntwo lines"},
		{Scope: state.ScopeChannel, Subject: "-100777", Text: "quiz night is on fridays: bring pens"},
		{Scope: state.ScopeUser, Subject: "4711", Name: "Ada (the cellist), \"A\"", Text: "Ada plays the cello", Shareable: true},
		{Scope: state.ScopeUser, Subject: "4711", Text: "Ada is vegetarian"},
		{Scope: state.ScopeUser, Subject: "bo", Name: "Bo", Text: "Bo likes tea"},
	}
	for _, n := range notes {
		if _, _, err := s.SaveNote(ctx, n, state.NoteLimits{}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()

	out, errOut, code := runAiri(t, src, "", "memory", "export")
	if code != exitOK || !strings.Contains(out, "## global\n- the harbour opens at six\n") ||
		!strings.Contains(out, "## user\n- \"4711\" (\"Ada (the cellist), \\\"A\\\"\", shareable): Ada plays the cello\n") {
		t.Fatalf("export: %d %q\n%s", code, errOut, out)
	}
	file := filepath.Join(dir, "memory.md")
	if err := os.WriteFile(file, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "dst.db")
	if o, e, code := runAiri(t, dst, "", "memory", "import", file); code != exitOK || o != "imported 6 note(s), 0 already there\n" {
		t.Fatalf("import: %d %q %q", code, o, e)
	}
	again, _, _ := runAiri(t, dst, "", "memory", "export")
	if again != out {
		t.Errorf("round trip changed the export:\n%s\n---\n%s", out, again)
	}
	if o, _, code := runAiri(t, dst, "", "memory", "import", file); code != exitOK || o != "imported 0 note(s), 6 already there\n" {
		t.Errorf("second import: %d %q", code, o)
	}

	tests := []struct {
		name string
		args []string
		code int
		out  []string // parts of stdout
		not  []string
	}{
		{"list", []string{"memory", "list"}, exitOK, []string{"global", "channel -100777", "user bo (Bo)", "shareable"}, nil},
		{"list a person", []string{"memory", "list", "--user", "4711"}, exitOK, []string{"cello", "vegetarian"}, []string{"Bo likes tea", "quiz"}},
		{"list a channel as JSON", []string{"memory", "list", "--channel", "-100777", "--json"}, exitOK, []string{`"scope":"channel"`, `"subject":"-100777"`, "bring pens"}, []string{"cello"}},
		{"show", []string{"memory", "show", "6"}, exitOK, []string{"note 6\nabout: user bo (Bo)\n", "text: Bo likes tea"}, nil},
		{"show missing", []string{"memory", "show", "99"}, exitFailure, nil, nil},
		{"show not an id", []string{"memory", "show", "x"}, exitUsage, nil, nil},
		{"delete", []string{"memory", "delete", "6"}, exitOK, []string{"deleted note 6"}, nil},
		{"deleted", []string{"memory", "list"}, exitOK, []string{"cello"}, []string{"Bo likes tea"}},
		{"delete missing", []string{"memory", "delete", "6"}, exitFailure, nil, nil},
		{"unknown", []string{"memory", "wipe"}, exitUsage, nil, nil},
		{"forget without a user", []string{"forget"}, exitUsage, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, e, code := runAiri(t, dst, "", tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.code, e)
			}
			for _, p := range tt.out {
				if !strings.Contains(o, p) {
					t.Errorf("output lacks %q:\n%s", p, o)
				}
			}
			for _, p := range tt.not {
				if strings.Contains(o, p) {
					t.Errorf("output has %q:\n%s", p, o)
				}
			}
		})
	}

	// A bad file is refused whole, naming the line.
	bad := "# airi memory\n\n## global\n- fine\n\n## user\n- no quotes: x\n"
	if o, e, code := runAiri(t, filepath.Join(dir, "bad.db"), bad, "memory", "import", "-"); code != exitFailure || !strings.Contains(e, "line 7") {
		t.Errorf("bad import: %d %q %q", code, o, e)
	}
	if o, _, _ := runAiri(t, filepath.Join(dir, "bad.db"), "", "memory", "list", "--json"); strings.TrimSpace(o) != "[]" && o != "" {
		t.Errorf("a refused import stored notes: %s", o)
	}
}
