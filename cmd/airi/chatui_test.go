package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airi-go/airi/planner/openai/openaitest"
)

// terminalPipe is the reading end of a pipe that airi chat treats as a
// terminal, as it would a person's keyboard.
type terminalPipe struct{ *io.PipeReader }

func (terminalPipe) IsTerminal() bool { return true }

// screen records what airi chat draws on a terminal's stderr and tells
// waiters when it changes.
type screen struct {
	mu      sync.Mutex
	buf     strings.Builder
	changed chan struct{}
}

func newScreen() *screen { return &screen{changed: make(chan struct{})} }

func (*screen) IsTerminal() bool { return true }

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Write(p)
	close(s.changed)
	s.changed = make(chan struct{})
	return len(p), nil
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor blocks until the screen holds want count times.
func (s *screen) waitFor(t *testing.T, want string, count int) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		s.mu.Lock()
		n, ch := strings.Count(s.buf.String(), want), s.changed
		s.mu.Unlock()
		if n >= count {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("the screen never showed %q %d times:\n%q", want, count, s.String())
		}
	}
}

// TestChatOnATerminal types into airi chat as a person at a terminal
// would: it shows a prompt, says where the logs go and keeps info lines
// out of the conversation, never glues a line to "is thinking…", and says
// in a line of its own when the model stops and starts answering.
func TestChatOnATerminal(t *testing.T) {
	out := newLineWriter()
	var failing atomic.Bool
	ack := ackModel(out.printed, nil)
	srv := openaitest.NewServer(t, func(ctx context.Context, req openaitest.Request) openaitest.Reply {
		if failing.Load() {
			return openaitest.Status(503, "")
		}
		return ack(ctx, req)
	})
	pr, pw := io.Pipe()
	scr := newScreen()
	a := &app{stdin: terminalPipe{pr}, stdout: out, stderr: scr,
		getenv: chatEnv(t, srv.URL(), map[string]string{"LOG_LEVEL": "info", "LLM_TIMEOUT": "2s"})}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- a.run(ctx, []string{"chat"}) }()

	scr.waitFor(t, "you> ", 1)
	type_ := func(text string) {
		t.Helper()
		if _, err := fmt.Fprintln(pw, text); err != nil {
			t.Fatal(err)
		}
	}
	waitReply := func(n int) {
		t.Helper()
		deadline := time.After(60 * time.Second)
		for !allAcked(ackCounts(out.printed()), n) {
			select {
			case <-out.lines:
			case <-deadline:
				t.Fatalf("no reply to tok-%d; screen:\n%q", n, scr.String())
			}
		}
	}
	type_("hello tok-1")
	waitReply(1)

	failing.Store(true)
	type_("are you there tok-2")
	scr.waitFor(t, "airi: the model is not answering", 1)
	failing.Store(false)
	type_("and now tok-3")
	waitReply(3)
	scr.waitFor(t, "airi: the model answers again", 1)
	pw.Close()
	if code := <-done; code != exitOK {
		t.Fatalf("exit %d; screen:\n%q", code, scr.String())
	}

	got := scr.String()
	lines := strings.Split(got, "\n")
	if !strings.HasPrefix(lines[0], "Chatting with Mira") || !strings.HasPrefix(lines[1], "Logs: warn and above here") {
		t.Errorf("the first lines do not say who is chatting and where the logs go:\n%q", lines[:2])
	}
	if strings.Contains(got, "message received") || strings.Contains(got, "INFO") {
		t.Errorf("info log lines are mixed into the conversation:\n%q", got)
	}
	thinking := "Mira is thinking…\033[0m"
	if strings.Count(got, thinking) == 0 {
		t.Fatalf("the bot was never shown thinking:\n%q", got)
	}
	for rest := got; strings.Contains(rest, thinking); {
		rest = rest[strings.Index(rest, thinking)+len(thinking):]
		if !strings.HasPrefix(rest, "\r\033[K") {
			t.Errorf("output glued to the thinking line: %q", firstBytes(rest, 80))
		}
	}
	for _, want := range []string{"\r\033[Kairi: the model is not answering (", "\r\033[Kairi: the model answers again\nyou> "} {
		if !strings.Contains(got, want) {
			t.Errorf("the screen lacks %q:\n%q", want, got)
		}
	}
	if !strings.HasSuffix(got, "\r\033[K") {
		t.Errorf("the screen does not end on a clean line: %q", firstBytes(got[max(0, len(got)-80):], 80))
	}
	if n := len(out.printed()); n == 0 || !strings.HasPrefix(out.printed()[0], "Mira: ") {
		t.Errorf("stdout: %q", out.printed())
	}
}

func firstBytes(s string, n int) string { return s[:min(len(s), n)] }

// TestChatLogsToAFile checks that --log writes the logs at LOG_LEVEL into
// the file, and that the screen says so.
func TestChatLogsToAFile(t *testing.T) {
	out := newLineWriter()
	srv := openaitest.NewServer(t, ackModel(out.printed, nil))
	pr, pw := io.Pipe()
	scr := newScreen()
	file := t.TempDir() + "/chat.log"
	a := &app{stdin: terminalPipe{pr}, stdout: out, stderr: scr,
		getenv: chatEnv(t, srv.URL(), map[string]string{"LOG_LEVEL": "info"})}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- a.run(ctx, []string{"chat", "--log", file}) }()
	scr.waitFor(t, "you> ", 1)
	fmt.Fprintln(pw, "hello tok-1")
	for !allAcked(ackCounts(out.printed()), 1) {
		<-out.lines
	}
	pw.Close()
	if code := <-done; code != exitOK {
		t.Fatalf("exit %d; screen:\n%q", code, scr.String())
	}
	if !strings.Contains(scr.String(), "Logs (info and above) go to "+file) {
		t.Errorf("the screen does not say where the logs go:\n%q", scr.String())
	}
	logs := readFile(t, file)
	if !strings.Contains(logs, "message received") {
		t.Errorf("the log file lacks the info lines:\n%s", logs)
	}
	if strings.Contains(scr.String(), "message received") {
		t.Error("info lines reached the screen")
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
