package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// runOnce runs the binary to its end and returns its exit code, stdout
// and stderr.
func runOnce(t *testing.T, env []string, stdin string, setup func(*exec.Cmd), args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(airiBinary(t), args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if setup != nil {
		setup(cmd)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		switch {
		case err == nil:
			return 0, out.String(), errb.String()
		case errors.As(err, &exit):
			return exit.ExitCode(), out.String(), errb.String()
		default:
			t.Fatalf("airi %s: %v", strings.Join(args, " "), err)
		}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("airi %s did not end; stderr:\n%s", strings.Join(args, " "), errb.String())
	}
	return 0, "", ""
}

// plainLines are the lines of stderr that are not JSON log records: what
// the command itself printed.
func plainLines(stderr string) []string {
	var out []string
	for _, l := range scanLines(stderr) {
		if !strings.HasPrefix(l, "{") {
			out = append(out, l)
		}
	}
	return out
}

// TestOneProcessPerDatabase starts `airi run`, then a second `airi run`
// and an `airi chat` on the same database: both exit 2 with one line
// naming the first one's pid, and nothing is answered twice. An export
// works beside the running bot.
func TestOneProcessPerDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	tg := telegramtest.Start(telegramtest.Options{ReadAllGroupMessages: true})
	defer tg.Close()
	model := openaitest.NewServer(t, ackModel(telegramTexts(tg), nil))
	db := dbIn(t)
	env := botEnv(model.URL(), db, "TELEGRAM_BOT_TOKEN="+tg.Token(), "TELEGRAM_API_BASE_URL="+tg.URL())
	bot := startBot(t, env)
	waitUntil(t, "the bot runs", bot, func() bool { return strings.Contains(bot.stderr.String(), "airi is running") })
	pid := fmt.Sprintf("pid %d", bot.cmd.Process.Pid)

	for _, cmd := range []string{"run", "chat"} {
		code, _, stderr := runOnce(t, env, "hello tok-99\n", nil, cmd)
		if code != exitUsage {
			t.Errorf("second airi %s exited %d, want %d; stderr:\n%s", cmd, code, exitUsage, stderr)
		}
		lines := plainLines(stderr)
		if len(lines) != 1 || !strings.Contains(lines[0], pid) || !strings.Contains(lines[0], db) {
			t.Errorf("second airi %s printed %q, want one line naming %s and the database", cmd, lines, pid)
		}
	}

	ann := telegramtest.User{ID: 501, FirstName: "Ann"}
	for n := 1; n <= 3; n++ {
		tg.Post(telegramtest.Incoming{Chat: telegramtest.PrivateChat(ann), From: ann, Text: fmt.Sprintf("hello tok-%d", n)})
	}
	waitUntil(t, "every message is answered", bot, func() bool { return allAcked(ackCounts(telegramTexts(tg)()), 3) })

	code, out, stderr := runOnce(t, env, "", nil, "ticks", "export")
	if code != exitOK || !strings.Contains(out, `"airi_session"`) {
		t.Errorf("ticks export beside the bot: exit %d, %d bytes out; stderr:\n%s", code, len(out), stderr)
	}
	bot.stop(t)
	for k, n := range ackCounts(telegramTexts(tg)()) {
		if n != 1 {
			t.Errorf("tok-%s answered %d times", k, n)
		}
	}
	if strings.Contains(strings.Join(telegramTexts(tg)(), "\n"), "99") {
		t.Error("a message typed into the refused chat was answered")
	}

	// The lock goes with its process: a new run starts at once.
	code, _, stderr = runOnce(t, env, "", nil, "chat")
	if code != exitOK {
		t.Errorf("airi chat after the bot stopped: exit %d, stderr:\n%s", code, stderr)
	}
}

// TestChatLeavesOtherPlatformsAlone runs `airi chat` on a database that
// holds a Telegram group with an unread message: the console is answered,
// the Telegram message is neither shown to the model, nor answered, nor
// marked read.
func TestChatLeavesOtherPlatformsAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	db := dbIn(t)
	ctx := context.Background()
	st, err := sqlite.Open(ctx, db, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	group := state.Channel{ID: "-1001234567890", Platform: "telegram", NativeID: "-1001234567890", Group: true, Title: "Harbour"}
	if err := st.UpsertChannel(ctx, group); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Ingest(ctx, state.Message{ChannelID: group.ID, PlatformID: "7", SenderName: "Bob", Content: "waiting tok-1", Time: time.Now().Add(-time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	var printed []string
	model := openaitest.NewServer(t, ackModel(func() []string { return printed }, nil))
	code, out, stderr := runOnce(t, procEnv(model.URL(), db), "hello tok-2\n", nil, "chat")
	if code != exitOK {
		t.Fatalf("airi chat exited %d; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(out, "got 2") {
		t.Errorf("the console message was not answered; stdout:\n%s", out)
	}
	if strings.Contains(out, "got 1") {
		t.Errorf("the Telegram backlog was answered on the console; stdout:\n%s", out)
	}
	for _, r := range model.Requests() {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "tok-1") || strings.Contains(m.Content, group.ID) {
				t.Fatalf("request %d shows the Telegram chat: %q", r.Call, m.Content)
			}
		}
	}
	st, err = sqlite.OpenReadOnly(ctx, db, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	unread, err := st.Unread(ctx, group.ID, 10)
	if err != nil || len(unread) != 1 {
		t.Errorf("Telegram chat unread = %d messages (%v), want its 1 message still unread", len(unread), err)
	}
}

// TestUnwritableDatabase starts the bot on a database it cannot write: it
// exits 2 at once with one line that says so. As root, whom permissions do
// not stop, the commands run as nobody.
func TestUnwritableDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	asRoot := os.Geteuid() == 0
	if asRoot {
		// nobody must reach the binary and the test's directories.
		if err := os.Chmod(filepath.Dir(airiBinary(t)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		// lock, when set, makes the database's directory unwritable after
		// its lock file was made, so that SQLite is what meets the refusal.
		prepare func(t *testing.T, dir, db string)
	}{
		{"read-only file", func(t *testing.T, dir, db string) {
			must(t, os.Chmod(dir, 0o777))
			must(t, os.Chmod(db, 0o444))
		}},
		{"read-only directory", func(t *testing.T, dir, db string) {
			must(t, os.WriteFile(sqlite.LockPath(db), nil, 0o666))
			must(t, os.Chmod(sqlite.LockPath(db), 0o666))
			must(t, os.Chmod(db, 0o666))
			must(t, os.Chmod(dir, 0o555))
		}},
		{"read-only directory, no lock file yet", func(t *testing.T, dir, db string) {
			must(t, os.Chmod(db, 0o666))
			must(t, os.Chmod(dir, 0o555))
		}},
	}
	for _, tt := range tests {
		for _, cmd := range []string{"chat", "run"} {
			t.Run(tt.name+"/"+cmd, func(t *testing.T) {
				base := t.TempDir()
				if asRoot {
					must(t, os.Chmod(filepath.Dir(base), 0o755))
					must(t, os.Chmod(base, 0o755))
				}
				dir := filepath.Join(base, "data")
				db := filepath.Join(dir, "airi.db")
				st, err := sqlite.Open(context.Background(), db, zaptest.NewLogger(t))
				if err != nil {
					t.Fatal(err)
				}
				must(t, st.Close())
				tt.prepare(t, dir, db)
				t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })

				env := botEnv("http://127.0.0.1:1/v1", db, "TELEGRAM_BOT_TOKEN="+telegramtest.DefaultToken, "TELEGRAM_API_BASE_URL=http://127.0.0.1:1", "HOME=/")
				code, _, stderr := runOnce(t, env, "hello\n", func(c *exec.Cmd) {
					if asRoot {
						c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
					}
				}, cmd)
				if code != exitUsage {
					t.Errorf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
				}
				lines := plainLines(stderr)
				if len(lines) != 1 || !strings.Contains(lines[0], "not writable") || !strings.Contains(lines[0], db) {
					t.Errorf("printed %q, want one line saying %s is not writable", lines, db)
				}
			})
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
