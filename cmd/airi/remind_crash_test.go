package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/airi-go/airi/planner/openai/openaitest"
)

// TestReminderSurvivesKill: the model sets a reminder 8 s ahead, `airi
// chat` is SIGKILLed 4 s later and started again at once on the same
// database; the reminder is printed exactly once, by the
// second process, with no model call of its own.
func TestReminderSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := airiBinary(t)
	scheduled := make(chan time.Time, 10) // when the schedule answer went back
	var answered time.Time
	srv := openaitest.NewServer(t, func(ctx context.Context, req openaitest.Request) openaitest.Reply {
		channel := strings.TrimPrefix(req.User, "airi:")
		last := req.Messages[len(req.Messages)-1].Content
		if strings.Contains(last, "reminder 1 set for") {
			scheduled <- answered
			return openaitest.Text(`{"action":"continue"}`)
		}
		if strings.Contains(last, "remind me") {
			answered = time.Now()
			return openaitest.Text(fmt.Sprintf(`{"action":"schedule","channelId":%q,"content":"time to stretch","after":"8s"}`, channel))
		}
		return openaitest.Text(`{"action":"continue"}`)
	})
	dbPath := filepath.Join(t.TempDir(), "airi.db")
	var out1, out2 syncBuffer
	var err1, err2 bytes.Buffer

	first := exec.Command(bin, "chat")
	first.Env = procEnv(srv.URL(), dbPath)
	stdin1, err := first.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	first.Stdout, first.Stderr = &out1, &err1
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(stdin1, "remind me in 8 seconds to stretch")
	var at time.Time
	select {
	case at = <-scheduled:
	case <-time.After(30 * time.Second):
		_ = first.Process.Kill()
		t.Fatalf("the reminder was never set; stderr:\n%s", err1.String())
	}
	// Killed 4 s after the schedule, halfway to its due time.
	time.Sleep(time.Until(at.Add(4 * time.Second)))
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	calls := len(srv.Requests())

	second := exec.Command(bin, "chat")
	second.Env = procEnv(srv.URL(), dbPath)
	stdin2, err := second.StdinPipe() // kept open: the chat waits for the reminder
	if err != nil {
		t.Fatal(err)
	}
	second.Stdout, second.Stderr = &out2, &err2
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		return strings.Count(out1.String(), "time to stretch") + strings.Count(out2.String(), "time to stretch")
	}
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	for count() == 0 {
		select {
		case <-deadline.C:
			_ = second.Process.Kill()
			t.Fatalf("the reminder never arrived; stderr:\n%s", err2.String())
		case <-poll.C:
		}
	}
	due := at.Add(8 * time.Second)
	if arrived := time.Now(); arrived.Before(due.Add(-time.Second)) {
		t.Errorf("the reminder arrived %v before its due time", due.Sub(arrived))
	} else {
		t.Logf("the reminder arrived %v after its due time", arrived.Sub(due).Round(time.Millisecond))
	}
	_ = stdin2.Close()
	done := make(chan error, 1)
	go func() { done <- second.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("second chat: %v; stderr:\n%s", err, err2.String())
		}
	case <-time.After(60 * time.Second):
		_ = second.Process.Kill()
		t.Fatalf("the second chat never became idle; stderr:\n%s", err2.String())
	}
	if n := count(); n != 1 {
		t.Errorf("the reminder was printed %d times, want once:\n%s%s", n, out1.String(), out2.String())
	}
	if !strings.Contains(out2.String(), "Mira: time to stretch") {
		t.Errorf("the restarted chat did not print the reminder:\n%s", out2.String())
	}
	// A restart may wake the chat; the reminder itself costs no call.
	for _, r := range srv.Requests()[calls:] {
		if strings.Contains(r.Messages[len(r.Messages)-1].Content, "time to stretch") {
			t.Errorf("the model was asked about the reminder's delivery")
		}
	}
}
