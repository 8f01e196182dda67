package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/airi-go/airi/planner/openai/openaitest"
)

var (
	tokenRe = regexp.MustCompile(`tok-(\d+)`)
	gotRe   = regexp.MustCompile(`got((?: \d+)+)`)
)

// ackModel is a scripted model for the bot's end-to-end tests. It answers
// every message token (tok-N) it is shown that the platform has not yet
// received an answer for with one send_message "got N ...", and otherwise
// continues. sent reports what the platform really received.
func ackModel(sent func() []string, calls chan<- int) openaitest.AnswerFunc {
	return func(ctx context.Context, req openaitest.Request) openaitest.Reply {
		if calls != nil {
			calls <- req.Call
		}
		acked := map[string]bool{}
		for _, s := range sent() {
			for _, m := range gotRe.FindAllStringSubmatch(s, -1) {
				for _, n := range strings.Fields(m[1]) {
					acked[n] = true
				}
			}
		}
		var todo []string
		for _, m := range req.Messages {
			for _, t := range tokenRe.FindAllStringSubmatch(m.Content, -1) {
				if !acked[t[1]] && !hasString(todo, t[1]) {
					todo = append(todo, t[1])
				}
			}
		}
		channel := strings.TrimPrefix(req.User, "airi:")
		if len(todo) == 0 || channel == "" {
			return openaitest.Text(`{"action":"continue"}`)
		}
		return openaitest.Text(fmt.Sprintf(`{"action":"send_message","channelId":%q,"content":"got %s"}`, channel, strings.Join(todo, " ")))
	}
}

func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ackCounts counts how often each token number was answered.
func ackCounts(sent []string) map[string]int {
	n := map[string]int{}
	for _, s := range sent {
		for _, m := range gotRe.FindAllStringSubmatch(s, -1) {
			for _, k := range strings.Fields(m[1]) {
				n[k]++
			}
		}
	}
	return n
}

// botProcess is a running `airi run`.
type botProcess struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startBot(t testing.TB, env []string) *botProcess {
	t.Helper()
	p := &botProcess{cmd: exec.Command(airiBinary(t), "run"), stderr: &syncBuffer{}, done: make(chan error, 1)}
	p.cmd.Env = env
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// stop ends the bot with SIGTERM and expects a clean exit.
func (p *botProcess) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		p.done <- err
		if err != nil {
			t.Errorf("airi run exited with %v; stderr:\n%s", err, p.stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Errorf("airi run did not stop on SIGTERM; stderr:\n%s", p.stderr.String())
	}
}

func (p *botProcess) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	err := <-p.done
	p.done <- err
}

func botEnv(modelURL, dbPath string, extra ...string) []string {
	env := procEnv(modelURL, dbPath)
	env = append(env, "AIRI_ADMIN_ADDR=127.0.0.1:0", "AIRI_TICK_INTERVAL=2s")
	return append(env, extra...)
}

// waitUntil polls cond while the system under test runs in another process.
func waitUntil(t *testing.T, what string, p *botProcess, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s; bot stderr:\n%s", what, p.stderr.String())
		}
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("airi run exited (%v) while waiting until %s; stderr:\n%s", err, what, p.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func allAcked(counts map[string]int, n int) bool {
	for i := 1; i <= n; i++ {
		if counts[fmt.Sprint(i)] == 0 {
			return false
		}
	}
	return true
}

func dbIn(t *testing.T) string { return filepath.Join(t.TempDir(), "airi.db") }
