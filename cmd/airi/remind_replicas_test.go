package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/state/postgres/pgtest"
)

// leaseHolderPID returns the pid of the live replica holding a
// channel's lease, or 0 when none does.
func leaseHolderPID(t *testing.T, dsn, channelID string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var holder string
	err = conn.QueryRow(ctx, `SELECT l.holder FROM leases l JOIN replicas p ON p.id = l.holder
WHERE l.channel_id = $1 AND p.expires > now()`, channelID).Scan(&holder)
	if err != nil {
		return 0
	}
	parts := strings.Split(holder, "-")
	if len(parts) < 3 {
		return 0
	}
	var pid int
	fmt.Sscan(parts[len(parts)-2], &pid)
	return pid
}

// TestReminderMovesWithKilledReplica runs three replicas on PostgreSQL.
// The model sets a reminder 8 s ahead in a private chat; the replica
// holding the chat is SIGKILLed right after. The reminder arrives once,
// sent by another replica, and never before its due time.
func TestReminderMovesWithKilledReplica(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dsn := pgtest.DSN(t)
	tg := telegramtest.Start(telegramtest.Options{})
	defer tg.Close()
	var (
		mu        sync.Mutex
		answered  time.Time // when the schedule answer went back
		scheduled = make(chan struct{}, 10)
	)
	model := openaitest.NewServer(t, func(ctx context.Context, req openaitest.Request) openaitest.Reply {
		channel := strings.TrimPrefix(req.User, "airi:")
		last := req.Messages[len(req.Messages)-1].Content
		switch {
		case strings.Contains(last, "reminder 1 set for"):
			scheduled <- struct{}{}
		case strings.Contains(last, "remind me"):
			mu.Lock()
			answered = time.Now()
			mu.Unlock()
			return openaitest.Text(fmt.Sprintf(`{"action":"schedule","channelId":%q,"content":"stretch now, tok-r","after":"8s"}`, channel))
		}
		return openaitest.Text(`{"action":"continue"}`)
	})
	env := pgEnv(t, model.URL(), dsn, tg, "AIRI_DEBOUNCE=10ms")
	bots := []*botProcess{startBot(t, env), startBot(t, env), startBot(t, env)}

	ann := telegramtest.User{ID: 501, FirstName: "Ann", Username: "ann"}
	tg.Post(telegramtest.Incoming{Chat: telegramtest.PrivateChat(ann), From: ann, Text: "remind me in 8 seconds to stretch"})
	select {
	case <-scheduled:
	case <-time.After(60 * time.Second):
		t.Fatalf("the reminder was never set; stderr:\n%s", bots[0].stderr.String())
	}
	var pid int
	waitUntil(t, "a replica holds the chat", bots[0], func() bool { pid = leaseHolderPID(t, dsn, "501"); return pid != 0 })
	victim := -1
	for i, b := range bots {
		if b.cmd.Process.Pid == pid {
			victim = i
		}
	}
	if victim < 0 {
		t.Fatalf("the chat's replica (pid %d) is none of ours", pid)
	}
	bots[victim].kill()
	killed := time.Now()
	survivor := bots[(victim+1)%len(bots)]

	reminders := func() int {
		n := 0
		for _, s := range tg.Sent() {
			if strings.Contains(s.Text, "stretch now, tok-r") {
				n++
			}
		}
		return n
	}
	waitUntil(t, "the reminder arrives", survivor, func() bool { return reminders() > 0 })
	arrived := time.Now()
	mu.Lock()
	due := answered.Add(8 * time.Second)
	mu.Unlock()
	if arrived.Before(due.Add(-time.Second)) {
		t.Errorf("the reminder arrived %v before its due time", due.Sub(arrived))
	}
	t.Logf("killed %v before the due time; the reminder arrived %v after it",
		due.Sub(killed).Round(time.Millisecond), arrived.Sub(due).Round(time.Millisecond))
	// A second delivery would come from a replica that missed the claim:
	// give the others a lease period and more to show one.
	time.Sleep(5 * time.Second)
	for i, b := range bots {
		if i != victim {
			b.stop(t)
		}
	}
	if n := reminders(); n != 1 {
		t.Errorf("the reminder was sent %d times, want once", n)
	}
	if pid := leaseHolderPID(t, dsn, "501"); pid == bots[victim].cmd.Process.Pid {
		t.Errorf("the killed replica still holds the chat")
	}
}
