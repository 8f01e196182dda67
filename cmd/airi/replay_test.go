package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/scheduler/replay"
)

// runCmd runs one command in-process and returns its exit code and output.
func runCommand(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	return runCommandIn(t, "", env, args...)
}

// runCommandIn is runCommand with stdin.
func runCommandIn(t *testing.T, stdin string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := &app{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, getenv: func(k string) string { return env[k] }}
	code := a.run(context.Background(), args)
	return code, out.String(), errOut.String()
}

func shipped(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(sessionsDir, "*.jsonl"))
	if err != nil || len(files) < 5 {
		t.Fatalf("shipped sessions: %v %v", files, err)
	}
	return files
}

func TestReplayShippedSessions(t *testing.T) {
	files := shipped(t)
	code, out, errOut := runCommand(t, nil, append([]string{"replay"}, files...)...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, f := range files {
		if !strings.Contains(out, "ok   "+f+": ") {
			t.Errorf("no ok line for %s:\n%s", f, out)
		}
	}
}

// editSession rewrites a shipped session with one change and returns its path.
func editSession(t *testing.T, name string, edit func(s *replay.Session)) string {
	t.Helper()
	ss, err := replay.ReadFile(filepath.Join(sessionsDir, name))
	if err != nil {
		t.Fatal(err)
	}
	edit(ss[0])
	path := filepath.Join(t.TempDir(), name)
	var b bytes.Buffer
	if err := replay.Write(&b, ss[0]); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReplayReportsDivergence(t *testing.T) {
	// Tick 4 of direct-chat sent the tea answer; the model now answers
	// continue instead.
	changed := editSession(t, "direct-chat.jsonl", func(s *replay.Session) {
		s.Ticks()[3].Raw = `{"action":"continue"}`
	})
	good := filepath.Join(sessionsDir, "group-burst.jsonl")
	code, out, errOut := runCommand(t, nil, "replay", good, changed)
	if code != exitFailure {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitFailure, out, errOut)
	}
	want := []string{
		"ok   " + good + ": 3 ticks match",
		"FAIL " + changed + ": tick 4 (wake ",
		"action differs",
		`expected: {"action":"send_message","channelId":"console","content":"assam, strong enough to stand a spoon in. no sugar, obviously."}`,
		`got:      {"action":"continue"}`,
		"1 session(s) diverged from their recording or could not be replayed",
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("report lacks %q:\n%s", w, out)
		}
	}
}

func TestReplayPromptEdit(t *testing.T) {
	persona, err := fs.ReadFile(prompts.Embedded(), "persona.md")
	if err != nil {
		t.Fatal(err)
	}
	const from, to = "warm, dry, a little teasing.", "warm, dry, a little grumpy."
	if !bytes.Contains(persona, []byte(from)) {
		t.Fatalf("the embedded persona no longer says %q: pick another phrase of it for this test", from)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "persona.md"), bytes.Replace(persona, []byte(from), []byte(to), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PROMPTS_DIR": dir}
	// The session as today's prompts render it: other tuning since it was
	// recorded is accepted first, so that only the persona edit shows.
	file := filepath.Join(t.TempDir(), "direct-chat.jsonl")
	if err := os.WriteFile(file, mustReadFile(t, filepath.Join(sessionsDir, "direct-chat.jsonl")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCommand(t, nil, "replay", "--update", file); code != exitOK {
		t.Fatalf("--update: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, out, _ := runCommand(t, nil, "replay", "--strict", file); code != exitOK || strings.Contains(out, "prompt changed") {
		t.Fatalf("after --update the prompts should match: exit %d\n%s", code, out)
	}

	code, out, errOut := runCommand(t, env, "replay", "--prompts", file)
	if code != exitOK {
		t.Fatalf("--prompts: exit %d, want 0 (a prompt change is no failure)\n%s\n%s", code, out, errOut)
	}
	want := []string{
		"ok   " + file + ": 5 ticks match\n",
		"prompt changed in " + file + ": 5 of its ticks\n",
		"--- recorded tick 1\n+++ replayed tick 1\n@@ -1,7 +1,7 @@\n === message 1 (system)\n",
		"\n-Voice: " + from,
		"\n+Voice: " + to,
		"(the same change in ticks 2-5)\n",
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if strings.Count(out, "--- recorded tick") != 1 || strings.Count(out, "@@ ") != 1 {
		t.Errorf("the change should be printed once, as one hunk:\n%s", out)
	}

	code, out, _ = runCommand(t, env, "replay", "--strict", file)
	if code != exitFailure || !strings.Contains(out, "rendered different prompts (--strict)") {
		t.Errorf("--strict: exit %d, want %d\n%s", code, exitFailure, out)
	}

	// Accepting the edit makes it the new baseline.
	code, out, _ = runCommand(t, env, "replay", "--update", file)
	if code != exitOK || !strings.Contains(out, "updated "+file) {
		t.Errorf("--update: exit %d\n%s", code, out)
	}
	code, out, _ = runCommand(t, env, "replay", "--strict", file)
	if code != exitOK {
		t.Errorf("--strict after --update: exit %d\n%s", code, out)
	}
	if !bytes.Contains(mustReadFile(t, file), []byte("a little grumpy")) {
		t.Error("the updated session does not hold the edited persona")
	}
}

func TestReplayUpdateRefusesDivergence(t *testing.T) {
	changed := editSession(t, "direct-chat.jsonl", func(s *replay.Session) {
		s.Ticks()[0].Raw = `{"action":"continue"}`
		s.Ticks()[0].Request[0].Content = "stale"
	})
	before := mustReadFile(t, changed)
	code, out, _ := runCommand(t, nil, "replay", "--update", changed)
	if code != exitFailure || strings.Contains(out, "updated") {
		t.Errorf("exit %d\n%s", code, out)
	}
	if !bytes.Equal(before, mustReadFile(t, changed)) {
		t.Error("a diverging session was rewritten")
	}
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReplayUsage(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"type":"event"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"no files", []string{"replay"}, exitUsage, ""},
		{"strict and update", []string{"replay", "--strict", "--update", "x.jsonl"}, exitUsage, ""},
		{"update standard input", []string{"replay", "--update", "-"}, exitUsage, ""},
		{"unknown flag", []string{"replay", "--fast", "x.jsonl"}, exitUsage, ""},
		{"missing file", []string{"replay", "no-such.jsonl"}, exitFailure, "FAIL no-such.jsonl: open session"},
		{"not a session", []string{"replay", bad}, exitFailure, "a session starts with a header line"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCommand(t, nil, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.out) {
				t.Errorf("exit %d, want %d; output:\n%s\n%s", code, tc.code, out, errOut)
			}
		})
	}
}

func TestDemo(t *testing.T) {
	code, out, errOut := runCommand(t, nil, "demo")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	want := []string{
		"> you: hey juni, you on shift tonight?\n",
		"tick 1 [message] send_message -> sent to \"console\"\nJuni: on shift, kettle on.",
		// "then": "next" asks for a second call, which ends the turn.
		"tick 2 [message] send_message -> sent to \"console\"\nJuni: clear till midnight",
		"tick 3 [message] continue -> waiting for something new\n> you: what tea",
		"tick 5 [message] send_message -> sent to \"console\"\nJuni: night.",
		"5 ticks, 4 message(s) sent.",
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("demo output lacks %q:\n%s", w, out)
		}
	}
	if errOut != "" {
		t.Errorf("demo wrote to stderr: %s", errOut)
	}
}

func TestDemoSessionIsShipped(t *testing.T) {
	shippedCopy, err := os.ReadFile(filepath.Join(sessionsDir, "direct-chat.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(demoSession, shippedCopy) {
		t.Error("cmd/airi/demo/session.jsonl differs from testdata/sessions/direct-chat.jsonl; record again with go test ./cmd/airi -run TestRecordSessions -record")
	}
}

func TestTicksExport(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "airi.db")
	// Two conversations recorded into one database by the real runtime.
	all := sessionScripts()
	var direct, group sessionScript
	for _, sc := range all {
		switch sc.file {
		case "direct-chat.jsonl":
			direct = sc
		case "group-burst.jsonl":
			group = sc
		}
	}
	direct.record(t, db).close()
	group.record(t, db).close()
	env := map[string]string{"DB_PATH": db}

	code, out, errOut := runCommand(t, env, "ticks", "export")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	ss, err := replay.Read(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 2 || ss[0].Header.Channel.ID != "-1001234567890" || ss[1].Header.Channel.ID != "console" {
		t.Fatalf("want the group then the console session, got %d sessions", len(ss))
	}
	if n := len(ss[1].Ticks()); n != 5 || ss[1].Header.Bot != "Juni" || !ss[1].Header.Settings.Interrupt || ss[1].Header.Turn != "send-ends" {
		t.Errorf("console session: %d ticks, header %+v", n, ss[1].Header)
	}
	// What was exported replays cleanly, both sessions of the one file.
	file := filepath.Join(dir, "both.jsonl")
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	code, rep, _ := runCommand(t, nil, "replay", file)
	if code != exitOK || !strings.Contains(rep, file+"#1 (channel -1001234567890): 3 ticks match") || !strings.Contains(rep, file+"#2 (channel console): 5 ticks match") {
		t.Errorf("replay of the export: exit %d\n%s", code, rep)
	}

	t.Run("piped into replay", func(t *testing.T) {
		code, rep, _ := runCommandIn(t, out, nil, "replay", "-")
		if code != exitOK || !strings.Contains(rep, "ok   stdin#2 (channel console): 5 ticks match") {
			t.Errorf("exit %d\n%s", code, rep)
		}
	})
	t.Run("channel", func(t *testing.T) {
		code, out, _ := runCommand(t, env, "ticks", "export", "--channel", "console")
		ss, err := replay.Read(strings.NewReader(out))
		if code != exitOK || err != nil || len(ss) != 1 || ss[0].Header.Channel.ID != "console" {
			t.Fatalf("exit %d, %v, %d sessions", code, err, len(ss))
		}
	})
	t.Run("since", func(t *testing.T) {
		// The group session was recorded an hour after the direct chat began.
		since := direct.start.Add(30 * time.Minute).Format(time.RFC3339)
		code, out, _ := runCommand(t, env, "ticks", "export", "--since", since)
		ss, err := replay.Read(strings.NewReader(out))
		if code != exitOK || err != nil || len(ss) != 1 || ss[0].Header.Channel.ID != "-1001234567890" {
			t.Fatalf("exit %d, %v, %d sessions", code, err, len(ss))
		}
	})
	t.Run("unknown channel", func(t *testing.T) {
		code, out, errOut := runCommand(t, env, "ticks", "export", "--channel", "nope")
		if code != exitFailure || out != "" || !strings.Contains(errOut, "no ticks recorded") {
			t.Errorf("exit %d, stdout %q, stderr %s", code, out, errOut)
		}
	})
}

func TestTicksExportUsage(t *testing.T) {
	env := map[string]string{"DB_PATH": filepath.Join(t.TempDir(), "none.db")}
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"since not RFC 3339", []string{"ticks", "export", "--since", "yesterday"}, exitUsage, `--since "yesterday": want an RFC 3339 time`},
		{"since without zone", []string{"ticks", "export", "--since", "2026-03-14T21:00:00"}, exitUsage, "RFC 3339"},
		{"extra argument", []string{"ticks", "export", "file.jsonl"}, exitUsage, "unexpected argument"},
		{"unknown flag", []string{"ticks", "export", "--all"}, exitUsage, ""},
		{"no subcommand", []string{"ticks"}, exitUsage, "airi ticks export"},
		{"no database", []string{"ticks", "export"}, exitFailure, "no database at DB_PATH"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCommand(t, env, tc.args...)
			if code != tc.code || out != "" || !strings.Contains(errOut, tc.err) {
				t.Errorf("exit %d, want %d; stdout %q; stderr %s", code, tc.code, out, errOut)
			}
		})
	}
}

// TestReplayOfALiveChat records chats the way users do: airi chat on its
// timers against a fake model endpoint, on the wall clock, then exports
// the database and replays it. The replay must match, prompts included.
func TestReplayOfALiveChat(t *testing.T) {
	echo := openaitest.Echo(openaitest.EchoOptions{All: true})
	t.Run("burst", func(t *testing.T) {
		srv := openaitest.NewServer(t, echo)
		liveChat(t, srv, func(in io.Writer, _ <-chan string) {
			fmt.Fprint(in, "hello there\nare you on shift?\nwhat's the weather\n")
		})
	})
	t.Run("interrupted", func(t *testing.T) {
		// The first call hangs until the runtime cancels it, which a
		// second message typed meanwhile makes it do.
		started := make(chan struct{}, 1)
		var calls atomic.Int32
		srv := openaitest.NewServer(t, func(ctx context.Context, req openaitest.Request) openaitest.Reply {
			if calls.Add(1) == 1 {
				started <- struct{}{}
				<-ctx.Done()
				return openaitest.Text("")
			}
			return echo(ctx, req)
		})
		session := liveChat(t, srv, func(in io.Writer, printed <-chan string) {
			fmt.Fprintln(in, "first")
			<-started
			fmt.Fprintln(in, "second")
			for line := range printed {
				if strings.Contains(line, "second") {
					return
				}
			}
		})
		if !strings.Contains(session, `"modelError":"interrupted`) {
			t.Errorf("no interrupted tick was recorded:\n%s", session)
		}
	})
}

// liveChat runs airi chat with type writing its input, exports what it
// recorded, checks that it replays cleanly and returns the session.
func liveChat(t *testing.T, srv *openaitest.Server, typeIn func(in io.Writer, printed <-chan string)) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "airi.db")
	env := map[string]string{
		"LLM_API_BASE_URL": srv.URL(), "LLM_MODEL": "test-model", "LLM_API_KEY": "sk-test",
		"DB_PATH": db, "AIRI_DEBOUNCE": "20ms", "AIRI_CONTINUE_DELAY": "0s", "LOG_LEVEL": "error",
	}
	pr, pw := io.Pipe()
	out := &lineSignal{lines: make(chan string, 100)}
	var errOut bytes.Buffer
	a := &app{stdin: pr, stdout: out, stderr: &lockedBuffer{b: &errOut}, getenv: func(k string) string { return env[k] }}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer pw.Close()
		typeIn(pw, out.lines)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code := a.run(ctx, []string{"chat"})
	_ = pr.Close()
	out.close() // a typist still waiting for a line gives up
	wg.Wait()
	if code != exitOK {
		t.Fatalf("chat: exit %d\n%s", code, errOut.String())
	}

	code, session, errText := runCommand(t, env, "ticks", "export")
	if code != exitOK {
		t.Fatalf("export: exit %d\n%s", code, errText)
	}
	file := filepath.Join(t.TempDir(), "live.jsonl")
	if err := os.WriteFile(file, []byte(session), 0o644); err != nil {
		t.Fatal(err)
	}
	code, rep, _ := runCommand(t, env, "replay", "--strict", file)
	if code != exitOK || !strings.Contains(rep, "ok   "+file) {
		t.Fatalf("replay of a live chat: exit %d\n%s\nsession:\n%s", code, rep, session)
	}
	return session
}

// lineSignal passes every printed line on.
type lineSignal struct {
	mu     sync.Mutex
	buf    string
	lines  chan string
	closed bool
}

func (w *lineSignal) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.closed = true
		close(w.lines)
	}
}

func (w *lineSignal) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf += string(p)
	for {
		line, rest, ok := strings.Cut(w.buf, "\n")
		if !ok {
			break
		}
		w.buf = rest
		if w.closed {
			continue
		}
		select {
		case w.lines <- line:
		default:
		}
	}
	return len(p), nil
}

type lockedBuffer struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// TestReplayCost edits one template at a time and checks that --cost
// names the edited part as the first difference of every tick and sums
// the token delta the edit adds to each request.
func TestReplayCost(t *testing.T) {
	// The session as today's prompts render it, so that only the edit shows.
	file := filepath.Join(t.TempDir(), "group-burst.jsonl")
	if err := os.WriteFile(file, mustReadFile(t, filepath.Join(sessionsDir, "group-burst.jsonl")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCommand(t, nil, "replay", "--update", file); code != exitOK {
		t.Fatalf("--update: exit %d\n%s\n%s", code, out, errOut)
	}
	const added = " The tide tables of the whole coast are in your head, every one of them, and you like to recite them."
	tests := []struct {
		name, template, after, firstDiff string
	}{
		{"persona", "persona.md", "Short sentences; casual spelling is fine.", "first difference: persona"},
		{"state template", "state.md", "Answer with one JSON action only.", "first difference: state message"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, err := fs.ReadFile(prompts.Embedded(), tc.template)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(text, []byte(tc.after)) {
				t.Fatalf("%s no longer says %q", tc.template, tc.after)
			}
			dir := t.TempDir()
			edited := bytes.Replace(text, []byte(tc.after), []byte(tc.after+added), 1)
			if err := os.WriteFile(filepath.Join(dir, tc.template), edited, 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runCommand(t, map[string]string{"PROMPTS_DIR": dir}, "replay", "--cost", file)
			if code != exitOK {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			ticks := strings.Count(out, "  tick ")
			if ticks != 3 || strings.Count(out, tc.firstDiff) != ticks {
				t.Errorf("want each of the 3 ticks to name %q:\n%s", tc.firstDiff, out)
			}
			// Every request grows by the same sentence: the total is three
			// times one tick's delta, and positive.
			var from, to, delta int
			if _, err := fmt.Sscanf(out[strings.Index(out, "  tick 1: "):], "  tick 1: %d → %d (%d)", &from, &to, &delta); err != nil || delta <= 0 || to-from != delta {
				t.Fatalf("tick 1 line unreadable or not growing (%v):\n%s", err, out)
			}
			if !strings.Contains(out, "  total over 3 calls: ") || !strings.Contains(out, fmt.Sprintf("(+%d)\n  mean tokens per call +", 3*delta)) {
				t.Errorf("want a total of +%d:\n%s", 3*delta, out)
			}
			if !strings.Contains(out, ", cache-stable prefix ") {
				t.Errorf("want the summary line:\n%s", out)
			}
		})
	}
	// Unchanged prompts cost nothing.
	code, out, _ := runCommand(t, nil, "replay", "--cost", file)
	if code != exitOK || strings.Count(out, "unchanged") != 3 || !strings.Contains(out, "mean tokens per call +0.0%") {
		t.Errorf("exit %d; unchanged prompts should cost nothing:\n%s", code, out)
	}
}
