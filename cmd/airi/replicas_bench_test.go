package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/state/postgres/pgtest"
)

// BenchmarkReplicaTicks measures ticks per second of one and of two
// replicas of the real binary on one database, on the same machine, with
// a model that answers at once: each round posts one message to each of
// 50 chats and waits until every one is answered.
func BenchmarkReplicaTicks(b *testing.B) {
	for _, replicas := range []int{1, 2} {
		b.Run(fmt.Sprintf("replicas=%d", replicas), func(b *testing.B) {
			dsn := pgtest.DSN(b)
			tg := telegramtest.Start(telegramtest.Options{ReadAllGroupMessages: true})
			defer tg.Close()
			model := openaitest.NewServer(b, ackModel(telegramTexts(tg), nil))
			env := botEnv(model.URL(), "", "DATABASE_URL="+dsn, "AIRI_LEASE_TTL=3s",
				"TELEGRAM_BOT_TOKEN="+tg.Token(), "TELEGRAM_API_BASE_URL="+tg.URL(),
				"AIRI_DEBOUNCE=0s", "AIRI_CONTINUE_DELAY=0s", "LOG_LEVEL=warn")
			var bots []*botProcess
			for range replicas {
				bots = append(bots, startBot(b, env))
			}
			const chats = 50
			n := 0
			post := func() {
				for k := range chats {
					n++
					u := telegramtest.User{ID: int64(1000 + k), FirstName: fmt.Sprint("User", k)}
					tg.Post(telegramtest.Incoming{Chat: telegramtest.PrivateChat(u), From: u, Text: fmt.Sprintf("hello tok-%d", n)})
				}
			}
			wait := func() {
				// One answer per message: a round waits for the previous one.
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				if _, err := tg.WaitSent(ctx, n); err != nil {
					b.Fatalf("%v; stderr:\n%s", err, bots[0].stderr.String())
				}
			}
			post() // warm up: leases taken, connections open
			wait()
			start := time.Now()
			for b.Loop() {
				post()
				wait()
			}
			elapsed := time.Since(start)
			b.ReportMetric(float64(b.N*chats)/elapsed.Seconds(), "ticks/s")
			for _, p := range bots {
				p.kill()
			}
		})
	}
}
