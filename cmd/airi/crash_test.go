package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// airiBinary builds the command once per test run, as the container
// image builds it (static, without cgo, stripped), so that what the
// tests measure of the process is what a deployment runs. TestMain
// removes it.
func airiBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "airi-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "airi")
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", binPath, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// TestMain runs the tests and removes the binary airiBinary built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		_ = os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

func procEnv(baseURL, dbPath string) []string {
	return append(os.Environ(),
		"LLM_API_BASE_URL="+baseURL, "LLM_MODEL=test-model", "LLM_API_KEY=sk-test",
		"DB_PATH="+dbPath, "AIRI_DEBOUNCE=30ms", "AIRI_CONTINUE_DELAY=0s", "AIRI_BOT_NAME=Mira",
		"LOG_LEVEL=info", "LOG_FORMAT=json")
}

// TestChatKilledAndRestartedLosesNothing kills `airi chat` while the loop
// is busy and restarts it on the same database with no new input.
func TestChatKilledAndRestartedLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := airiBinary(t)
	calls := make(chan int, 1000)
	var out1, out2 syncBuffer
	printed := func() []string { return append(scanLines(out1.String()), scanLines(out2.String())...) }
	ack := ackModel(printed, calls)
	srv := openaitest.NewServer(t, func(ctx context.Context, req openaitest.Request) openaitest.Reply {
		// A slow model keeps the loop busy when the kill comes.
		select {
		case <-time.After(150 * time.Millisecond):
		case <-ctx.Done():
		}
		return ack(ctx, req)
	})
	dbPath := filepath.Join(t.TempDir(), "airi.db")

	first := exec.Command(bin, "chat")
	first.Env = procEnv(srv.URL(), dbPath)
	stdin, err := first.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var err1 bytes.Buffer
	first.Stdout, first.Stderr = &out1, &err1
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	msgs := conversation(8)
	deadline := time.After(30 * time.Second)
	waitCall := func() {
		select {
		case <-calls:
		case <-deadline:
			t.Fatalf("the model was not called; stderr:\n%s", err1.String())
		}
	}
	// Half the messages, then the rest while the model answers the first
	// half; the kill lands while the model is busy with the second half
	// (the call that the second half interrupted or held back the send of).
	for _, m := range msgs[:4] {
		fmt.Fprintln(stdin, m)
	}
	waitCall()
	for _, m := range msgs[4:] {
		fmt.Fprintln(stdin, m)
	}
	waitCall()
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()

	received := storedMessages(t, dbPath)
	if len(received) == 0 {
		t.Fatal("nothing was stored before the kill")
	}

	second := exec.Command(bin, "chat")
	second.Env = procEnv(srv.URL(), dbPath)
	second.Stdin = strings.NewReader("")
	var err2 bytes.Buffer
	second.Stdout, second.Stderr = &out2, &err2
	done := make(chan error, 1)
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- second.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("restart: %v; stderr:\n%s", err, err2.String())
		}
	case <-time.After(60 * time.Second):
		_ = second.Process.Kill()
		t.Fatalf("the restarted chat never became idle; stderr:\n%s", err2.String())
	}

	var seen strings.Builder
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			seen.WriteString(m.Content)
		}
	}
	for _, m := range received {
		if !strings.Contains(seen.String(), m.Content) {
			t.Errorf("%q was received before the kill but never reached the model", m.Content)
		}
	}
	lines := map[string]int{}
	for _, line := range printed() {
		lines[line]++
	}
	for line, n := range lines {
		if n > 1 {
			t.Errorf("printed %d times: %q", n, line)
		}
	}
	for k, n := range ackCounts(printed()) {
		if n > 1 {
			t.Errorf("tok-%s answered %d times", k, n)
		}
	}
	if len(lines) == 0 {
		t.Error("nothing was answered at all")
	}
}

func storedMessages(t *testing.T, dbPath string) []state.Message {
	t.Helper()
	st, err := sqlite.Open(context.Background(), dbPath, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	msgs, err := st.Events(context.Background(), state.TickFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}
