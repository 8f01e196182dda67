package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airi-go/airi/planner/openai/openaitest"
)

// lineWriter hands every printed line to a channel.
type lineWriter struct {
	mu    sync.Mutex
	buf   strings.Builder
	lines chan string
	all   []string
}

func newLineWriter() *lineWriter { return &lineWriter{lines: make(chan string, 1000)} }

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for {
		s := w.buf.String()
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			break
		}
		line := s[:i]
		w.buf.Reset()
		w.buf.WriteString(s[i+1:])
		w.all = append(w.all, line)
		w.lines <- line
	}
	return len(p), nil
}

func (w *lineWriter) printed() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.all...)
}

func chatEnv(t *testing.T, baseURL string, extra map[string]string) func(string) string {
	env := map[string]string{
		"LLM_API_BASE_URL":    baseURL,
		"LLM_MODEL":           "test-model",
		"LLM_API_KEY":         "sk-test-secret",
		"DB_PATH":             t.TempDir() + "/airi.db",
		"AIRI_DEBOUNCE":       "30ms",
		"AIRI_CONTINUE_DELAY": "0s",
		"AIRI_BOT_NAME":       "Mira",
		"LOG_LEVEL":           "warn",
	}
	for k, v := range extra {
		env[k] = v
	}
	return func(k string) string { return env[k] }
}

// converse types each message after the reply to the previous one was
// printed, as a person would, then closes the input.
func converse(t *testing.T, in *io.PipeWriter, out *lineWriter, msgs []string) {
	defer in.Close()
	deadline := time.After(60 * time.Second)
	for i, m := range msgs {
		if _, err := fmt.Fprintln(in, m); err != nil {
			t.Errorf("type %q: %v", m, err)
			return
		}
		for replied := false; !replied; {
			select {
			case line := <-out.lines:
				replied = ackCounts([]string{line})[fmt.Sprint(i+1)] > 0
			case <-deadline:
				t.Errorf("no reply to %q", m)
				return
			}
		}
	}
}

func runChat(t *testing.T, srv *openaitest.Server, out *lineWriter, extra map[string]string, msgs []string) (int, *strings.Builder) {
	t.Helper()
	pr, pw := io.Pipe()
	errOut := &strings.Builder{}
	a := &app{stdin: pr, stdout: out, stderr: &lockedWriter{w: errOut}, getenv: chatEnv(t, srv.URL(), extra)}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		converse(t, pw, out, msgs)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	code := a.run(ctx, []string{"chat"})
	_ = pr.Close()
	wg.Wait()
	return code, errOut
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func conversation(n int) []string {
	msgs := make([]string, n)
	for i := range msgs {
		msgs[i] = fmt.Sprintf("message tok-%d from the user", i+1)
	}
	return msgs
}

// checkAnsweredOnce asserts every message reached the model and was
// answered exactly once.
func checkAnsweredOnce(t *testing.T, srv *openaitest.Server, printed []string, msgs []string) {
	t.Helper()
	var seen strings.Builder
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			seen.WriteString(m.Content)
		}
	}
	counts := ackCounts(printed)
	for i, m := range msgs {
		if !strings.Contains(seen.String(), m) {
			t.Errorf("the model never saw %q", m)
		}
		if n := counts[fmt.Sprint(i+1)]; n != 1 {
			t.Errorf("%q answered %d times in:\n%s", m, n, strings.Join(printed, "\n"))
		}
	}
	for _, line := range printed {
		if !strings.HasPrefix(line, "Mira: ") {
			t.Errorf("unexpected output line %q", line)
		}
	}
}

func TestChatConversation(t *testing.T) {
	out := newLineWriter()
	srv := openaitest.NewServer(t, ackModel(out.printed, nil))
	msgs := conversation(10)
	code, errOut := runChat(t, srv, out, nil, msgs)
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	checkAnsweredOnce(t, srv, out.printed(), msgs)
	if strings.Contains(errOut.String(), "sk-test-secret") {
		t.Error("the API key was logged")
	}
}

func TestChatSurvivesModelFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out Retry-After and timeouts")
	}
	out := newLineWriter()
	srv := openaitest.NewServer(t, openaitest.Faults(ackModel(out.printed, nil),
		openaitest.FaultOptions{Rate: 0.2, Seed: 7, RetryAfter: "1"}))
	msgs := conversation(10)
	code, errOut := runChat(t, srv, out, map[string]string{"LLM_TIMEOUT": "1s"}, msgs)
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	checkAnsweredOnce(t, srv, out.printed(), msgs)
	if srv.Calls() <= len(msgs) {
		t.Errorf("only %d calls: no fault was injected", srv.Calls())
	}
}

func TestChatExitsWhenInputEndsAndIdle(t *testing.T) {
	out := newLineWriter()
	srv := openaitest.NewServer(t, ackModel(out.printed, nil))
	errOut := &strings.Builder{}
	in := strings.NewReader("one tok-1\ntwo tok-2\nthree tok-3\n")
	a := &app{stdin: in, stdout: out, stderr: &lockedWriter{w: errOut}, getenv: chatEnv(t, srv.URL(), nil)}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if code := a.run(ctx, []string{"chat"}); code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if counts := ackCounts(out.printed()); !allAcked(counts, 3) {
		t.Errorf("not every message was answered: %v\n%s", counts, strings.Join(out.printed(), "\n"))
	}
}

func TestChatFailsOnPermanentModelError(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Sequence(openaitest.Status(401, "")))
	errOut := &strings.Builder{}
	a := &app{stdin: strings.NewReader("hello\n"), stdout: io.Discard, stderr: &lockedWriter{w: errOut}, getenv: chatEnv(t, srv.URL(), nil)}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if code := a.run(ctx, []string{"chat"}); code != exitFailure {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, errOut)
	}
	if !strings.Contains(errOut.String(), "LLM_API_KEY") {
		t.Errorf("the error does not name the setting to check:\n%s", errOut)
	}
	if strings.Contains(errOut.String(), "sk-test-secret") {
		t.Error("the API key was printed")
	}
}

func TestChatWithoutModelIsAUsageError(t *testing.T) {
	errOut := &strings.Builder{}
	a := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: errOut, getenv: func(string) string { return "" }}
	if code := a.run(context.Background(), []string{"chat"}); code != exitUsage {
		t.Fatalf("exit %d, want 2", code)
	}
	for _, want := range []string{"LLM_API_BASE_URL", "LLM_MODEL", "11434"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("message lacks %q:\n%s", want, errOut)
		}
	}
}

// scanLines splits text into lines.
func scanLines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}
