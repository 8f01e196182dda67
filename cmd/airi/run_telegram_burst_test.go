package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/bench"
	"github.com/airi-go/airi/internal/rusage"
	"github.com/airi-go/airi/planner/openai/openaitest"
)

// TestRunTelegramBurst measures a burst against the real binary: `airi
// run` with its default settings, the Telegram adapter polling a fake Bot
// API and a model that answers at once; AIRI_TEST_BURST chats (200 by
// default, 1000 for the full measurement; scripts/telegram-burst) each
// send one private message at the same moment. It logs the time from the
// first message to the last reply, the reply latency at p50 and p99, the
// process's idle and peak resident memory and its CPU time, and the CPU
// time of the test process, which runs both fakes. With
// AIRI_TEST_BURST_PROFILE=DIR it also saves a CPU profile of the bot
// during the burst and a heap profile after it (DIR/cpu.pprof,
// DIR/heap.pprof).
//
// The model's habit is AIRI_TEST_BURST_MODEL: reply (at once) or
// read-reply (read_unread_messages first, then the reply, the wake's
// continue delay at its default between them); both when it is unset.
//
// It asserts only what does not depend on the machine: every chat is
// answered exactly once and every update is confirmed.
func TestRunTelegramBurst(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("reads the bot's memory and CPU from /proc")
	}
	n := 200
	if v := os.Getenv("AIRI_TEST_BURST"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("AIRI_TEST_BURST=%q: want a number of chats", v)
		}
	}
	habits := map[string]openaitest.AnswerFunc{
		"reply":      openaitest.Echo(openaitest.EchoOptions{}),
		"read-reply": openaitest.ReadFirst(openaitest.Echo(openaitest.EchoOptions{})),
	}
	names := []string{"reply", "read-reply"}
	if v := os.Getenv("AIRI_TEST_BURST_MODEL"); v != "" {
		if habits[v] == nil {
			t.Fatalf("AIRI_TEST_BURST_MODEL=%q: want reply or read-reply", v)
		}
		names = []string{v}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) { telegramBurst(t, n, habits[name]) })
	}
}

func telegramBurst(t *testing.T, n int, habit openaitest.AnswerFunc) {
	profileDir := os.Getenv("AIRI_TEST_BURST_PROFILE")

	tg := telegramtest.NewServer(telegramtest.Options{})
	defer tg.Close()
	tgSrv, tgConns := countingServer(t, tg)
	model := openaitest.NewHandler(habit)
	defer model.Close()
	modelSrv, modelConns := countingServer(t, model)
	// The settings are the defaults but for where the fakes are, an admin
	// port of its own and JSON logs (to read that port from).
	const adminToken = "burst-admin-token"
	env := append(os.Environ(),
		"LLM_API_BASE_URL="+modelSrv.URL+"/v1", "LLM_MODEL=test-model", "LLM_API_KEY=sk-test",
		"DB_PATH="+dbIn(t), "TELEGRAM_BOT_TOKEN="+tg.Token(), "TELEGRAM_API_BASE_URL="+tgSrv.URL,
		"AIRI_ADMIN_ADDR=127.0.0.1:0", "AIRI_ADMIN_TOKEN="+adminToken, "LOG_FORMAT=json")
	bot := startBot(t, env)
	pid := bot.cmd.Process.Pid
	waitUntil(t, "the bot polls", bot, func() bool { return tg.Calls("getUpdates") > 0 })
	// Let start-up work (the database, the first poll) finish before
	// reading the idle figure.
	settle(t, bot, 2*time.Second)
	idle, idleAnon, idleFile := procField(t, pid, "VmRSS"), procField(t, pid, "RssAnon"), procField(t, pid, "RssFile")

	var profile chan []byte
	if profileDir != "" {
		profile = make(chan []byte, 1)
		admin := adminAddr(t, bot)
		go func() { profile <- fetchProfile(admin+"/debug/pprof/profile?seconds=10", adminToken) }()
	}

	cpu0, self0 := procCPU(t, pid), rusage.CPU().Seconds()
	tgConns0, modelConns0 := tgConns.Load(), modelConns.Load()
	first := time.Now()
	users := make([]telegramtest.User, n)
	for i := range users {
		users[i] = telegramtest.User{ID: int64(100000 + i), FirstName: fmt.Sprintf("User%d", i)}
	}
	for i, u := range users {
		tg.Post(telegramtest.Incoming{From: u, Text: fmt.Sprintf("hello from chat %d", i)})
	}
	lastUpdate := n // the fake numbers updates from 1

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	go func() {
		select {
		case err := <-bot.done:
			bot.done <- err
			cancel()
		case <-ctx.Done():
		}
	}()
	// The moment the last update is confirmed: every message is stored.
	type confirmed struct {
		at  time.Time
		err error
	}
	stored := make(chan confirmed, 1)
	go func() {
		err := tg.WaitConfirmed(ctx, lastUpdate)
		stored <- confirmed{time.Now(), err}
	}()
	if _, err := tg.WaitSent(ctx, n); err != nil {
		t.Fatalf("%v; bot stderr (tail):\n%s", err, tail(bot.stderr.String(), 4000))
	}
	c := <-stored
	if c.err != nil {
		t.Fatalf("the updates were not all confirmed: %v", c.err)
	}
	intake := c.at
	cpu1, self1 := procCPU(t, pid), rusage.CPU().Seconds()
	peak := procField(t, pid, "VmHWM")
	if profile != nil {
		if err := os.WriteFile(filepath.Join(profileDir, "cpu.pprof"), <-profile, 0o644); err != nil {
			t.Fatal(err)
		}
		heap := fetchProfile(adminAddr(t, bot)+"/debug/pprof/heap", adminToken)
		if err := os.WriteFile(filepath.Join(profileDir, "heap.pprof"), heap, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bot.stop(t)

	sent := tg.Sent()
	replies := map[int64]int{}
	var lat []time.Duration
	last := first
	for _, s := range sent {
		replies[s.ChatID]++
		lat = append(lat, s.At.Sub(first))
		if s.At.After(last) {
			last = s.At
		}
	}
	for _, u := range users {
		if replies[u.ID] != 1 {
			t.Errorf("chat %d got %d replies, want 1", u.ID, replies[u.ID])
		}
	}
	if len(sent) != n {
		t.Errorf("%d messages sent for %d chats", len(sent), n)
	}
	t.Logf("burst of %d chats: last reply %.2fs after the first message; reply latency p50 %.2fs, p99 %.2fs; all stored (confirmed) after %.2fs",
		n, last.Sub(first).Seconds(), bench.Percentile(lat, 0.50)/1000, bench.Percentile(lat, 0.99)/1000, intake.Sub(first).Seconds())
	t.Logf("bot: idle RSS %.1f MB (%.1f MB anonymous, %.1f MB mapped from files), peak RSS %.1f MB, CPU %.2fs in the burst; test process (both fakes) CPU %.2fs",
		idle, idleAnon, idleFile, peak, cpu1-cpu0, self1-self0)
	t.Logf("calls: %d to the model over %d new connections; %d getUpdates, %d sendMessage, %d sendChatAction over %d new connections",
		model.Calls(), modelConns.Load()-modelConns0, tg.Calls("getUpdates"), tg.Calls("sendMessage"), tg.Calls("sendChatAction"), tgConns.Load()-tgConns0)
}

// countingServer serves h on 127.0.0.1 until the test ends and counts the
// connections clients open to it.
func countingServer(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv, &conns
}

// settle waits d while the bot runs, failing if it exits.
func settle(t *testing.T, p *botProcess, d time.Duration) {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		t.Fatalf("airi run exited (%v); stderr:\n%s", err, p.stderr.String())
	case <-time.After(d):
	}
}

// procField reads a figure of /proc/<pid>/status (VmRSS, VmHWM) in MB.
func procField(t *testing.T, pid int, field string) float64 {
	t.Helper()
	mb := bench.ProcStatusMB(strconv.Itoa(pid), field)
	if mb <= 0 {
		t.Fatalf("no %s in /proc/%d/status", field, pid)
	}
	return mb
}

// procCPU is the user and system CPU time of a process, in seconds.
func procCPU(t *testing.T, pid int) float64 {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces; utime and stime are the 14th and 15th of the line.
	rest := raw[bytes.LastIndexByte(raw, ')')+2:]
	f := strings.Fields(string(rest))
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("read CPU times of %q", raw)
	}
	const ticksPerSecond = 100 // USER_HZ on Linux
	return float64(utime+stime) / ticksPerSecond
}

// fetchProfile gets a profile from the admin server (nil on failure: the
// profile is an extra, not part of the measurement).
func fetchProfile(url, token string) []byte {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return b
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
