package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// TestExportOfCrashedRunReplays kills `airi chat` while a model call is in
// flight, restarts it on the same database until it is idle, then exports
// the recorded ticks and replays them: the history of a real crash and
// restart replays cleanly.
func TestExportOfCrashedRunReplays(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := airiBinary(t)
	calls := make(chan int, 1000)
	var out1, out2 syncBuffer
	printed := func() []string { return append(scanLines(out1.String()), scanLines(out2.String())...) }
	ack := ackModel(printed, calls)
	release := make(chan struct{})
	srv := openaitest.NewServer(t, func(ctx context.Context, req openaitest.Request) openaitest.Reply {
		if req.Call >= 2 {
			// From the second call on the model hangs until the kill.
			select {
			case <-release:
			default:
				calls <- req.Call
				return openaitest.Hang()
			}
		}
		return ack(ctx, req)
	})
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "airi.db")

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
	deadline := time.After(30 * time.Second)
	waitCall := func() int {
		select {
		case n := <-calls:
			t.Logf("call %d", n)
			return n
		case <-deadline:
			t.Fatalf("the model was not called; stderr:\n%s", err1.String())
		}
		return 0
	}
	msgs := conversation(4)
	// The first message is answered (one call: the send ends the turn);
	// the second finds the model hanging, and the third arrives during that
	// call and cancels it, unless the second already used the wake's one
	// interruption. The crash comes once the third is stored, while a call
	// hangs either way.
	fmt.Fprintln(stdin, msgs[0])
	waitCall()
	fmt.Fprintln(stdin, msgs[1])
	waitCall()
	fmt.Fprintln(stdin, msgs[2])
	for stored := 0; stored < 3; stored = countStored(t, dbPath) {
		select {
		case n := <-calls:
			t.Logf("call %d", n)
		case <-deadline:
			t.Fatalf("the third message was never stored; stderr:\n%s", err1.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	close(release)

	second := exec.Command(bin, "chat")
	second.Env = procEnv(srv.URL(), dbPath)
	second.Stdin = strings.NewReader(msgs[3] + "\n")
	var err2 bytes.Buffer
	second.Stdout, second.Stderr = &out2, &err2
	if err := second.Run(); err != nil {
		t.Fatalf("restart: %v; stderr:\n%s", err, err2.String())
	}

	code, exported, stderr := runOnce(t, procEnv(srv.URL(), dbPath), "", nil, "ticks", "export")
	if code != exitOK {
		t.Fatalf("export exited %d; stderr:\n%s", code, stderr)
	}
	file := filepath.Join(dir, "crash.jsonl")
	if err := os.WriteFile(file, []byte(exported), 0o600); err != nil {
		t.Fatal(err)
	}
	code, report, stderr := runOnce(t, procEnv(srv.URL(), filepath.Join(dir, "unused.db")), "", nil, "replay", file)
	if code != exitOK {
		t.Fatalf("replay of the crashed run exited %d:\n%s\nstderr:\n%s\nsession:\n%s", code, report, stderr, exported)
	}
}

// countStored counts the messages received into the database, reading it
// beside the process that writes it.
func countStored(t *testing.T, dbPath string) int {
	t.Helper()
	st, err := sqlite.OpenReadOnly(context.Background(), dbPath, zaptest.NewLogger(t))
	if err != nil {
		return 0 // not created yet
	}
	defer st.Close()
	msgs, err := st.Events(context.Background(), state.TickFilter{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range msgs {
		if !m.Self {
			n++
		}
	}
	return n
}
