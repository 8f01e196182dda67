package main

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/state/postgres/pgtest"
)

// pgEnv is the environment of a replica on the test's own schema.
func pgEnv(t *testing.T, modelURL, dsn string, tg *telegramtest.Server, extra ...string) []string {
	env := botEnv(modelURL, dbIn(t), "DATABASE_URL="+dsn, "AIRI_LEASE_TTL=3s",
		"TELEGRAM_BOT_TOKEN="+tg.Token(), "TELEGRAM_API_BASE_URL="+tg.URL())
	return append(env, extra...)
}

// tickSpan is when one replica drove a channel: from the tick's start to
// its record.
type tickSpan struct {
	replica    string
	start, end time.Time
}

// overlaps reads every tick record and reports each pair of ticks of one
// channel run by two replicas at overlapping times.
func overlaps(t *testing.T, dsn string) (ticks int, problems []string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT channel_id, replica, now, recorded FROM ticks ORDER BY channel_id, now`)
	if err != nil {
		t.Fatal(err)
	}
	spans := map[string][]tickSpan{}
	for rows.Next() {
		var (
			ch string
			s  tickSpan
		)
		if err := rows.Scan(&ch, &s.replica, &s.start, &s.end); err != nil {
			t.Fatal(err)
		}
		if s.replica == "" {
			problems = append(problems, fmt.Sprintf("tick in %s names no replica", ch))
		}
		spans[ch] = append(spans[ch], s)
		ticks++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for ch, ss := range spans {
		sort.Slice(ss, func(i, j int) bool { return ss[i].start.Before(ss[j].start) })
		for i := 1; i < len(ss); i++ {
			prev, cur := ss[i-1], ss[i]
			if prev.replica != cur.replica && cur.start.Before(prev.end) {
				problems = append(problems, fmt.Sprintf("%s: %s ran a tick from %v while %s ran one until %v",
					ch, cur.replica, cur.start.Format(time.RFC3339Nano), prev.replica, prev.end.Format(time.RFC3339Nano)))
			}
		}
	}
	return ticks, problems
}

// TestRunPostgres runs one replica on PostgreSQL: it answers, and the
// commands that read the database (ticks export, migrate) work on it.
func TestRunPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dsn := pgtest.DSN(t)
	tg := telegramtest.Start(telegramtest.Options{ReadAllGroupMessages: true})
	defer tg.Close()
	model := openaitest.NewServer(t, ackModel(telegramTexts(tg), nil))
	env := pgEnv(t, model.URL(), dsn, tg)

	// migrate first, as an operator would; run then finds nothing to apply.
	a, stdout, stderr := testApp(env)
	if code := a.run(context.Background(), []string{"migrate"}); code != exitOK {
		t.Fatalf("airi migrate = %d; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout.String(), "at version") {
		t.Errorf("airi migrate printed %q", stdout)
	}

	bot := startBot(t, append(env, "AIRI_DEBOUNCE=10ms"))
	ann := telegramtest.User{ID: 501, FirstName: "Ann", Username: "ann"}
	for n := 1; n <= 3; n++ {
		tg.Post(telegramtest.Incoming{Chat: telegramtest.PrivateChat(ann), From: ann, Text: fmt.Sprintf("hello tok-%d", n)})
	}
	waitUntil(t, "every message is answered", bot, func() bool { return allAcked(ackCounts(telegramTexts(tg)()), 3) })
	bot.stop(t)
	for k, n := range ackCounts(telegramTexts(tg)()) {
		if n != 1 {
			t.Errorf("tok-%s answered %d times", k, n)
		}
	}

	a, stdout, stderr = testApp(env)
	if code := a.run(context.Background(), []string{"ticks", "export"}); code != exitOK {
		t.Fatalf("airi ticks export = %d; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout.String(), "tok-1") {
		t.Errorf("export lacks the conversation:\n%s", stdout)
	}
}

// testApp is the binary's entry point with env as its environment.
func testApp(env []string) (*app, *bytes.Buffer, *bytes.Buffer) {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	var stdout, stderr bytes.Buffer
	return &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return vars[k] }}, &stdout, &stderr
}
