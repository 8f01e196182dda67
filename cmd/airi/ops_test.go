package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// seedOps makes a database with two channels, messages and n ticks.
func seedOps(t *testing.T, path string, n int) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, ch := range []state.Channel{{ID: "c1", Platform: "telegram", Title: "One", Group: true}, {ID: "c2", Platform: "telegram", Title: "Two"}} {
		if err := st.UpsertChannel(ctx, ch); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if _, _, err := st.Ingest(ctx, state.Message{ChannelID: ch.ID, PlatformID: fmt.Sprint(i), SenderID: "42", SenderName: "Ann", Content: "hi", Time: time.Now()}); err != nil {
				t.Fatal(err)
			}
		}
	}
	addTicks(t, st, n, time.Now())
}

func addTicks(t *testing.T, st *sqlite.Store, n int, now time.Time) {
	t.Helper()
	req := []state.ChatMessage{{Role: "system", Content: strings.Repeat("You are a helpful bot. ", 200)}, {Role: "user", Content: "state"}}
	for i := range n {
		_, err := st.AddTick(context.Background(), state.Tick{ChannelID: []string{"c1", "c2"}[i%2], Trigger: "message", Now: now,
			Request: req, Raw: `{"action":"continue"}`, Action: []byte(`{"action":"continue"}`), Usage: state.Usage{PromptTokens: 10, CompletionTokens: 2}})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestStatusAndChannelCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "airi.db")
	seedOps(t, db, 4)
	env := map[string]string{"DB_PATH": db}
	steps := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"channels"}, exitOK, "c1\ttelegram\tgroup\tOne"},
		{[]string{"channel", "pause", "c1", "--for", "1h"}, exitOK, "c1: paused until"},
		{[]string{"channel", "pause", "nope"}, exitFailure, ""},
		{[]string{"channel", "pause"}, exitUsage, ""},
		{[]string{"channel", "reset", "c2"}, exitOK, "3 unread message(s) set aside"},
		{[]string{"forget", "--channel", "c2"}, exitOK, "forgot channel c2: 3 message(s), 2 tick(s)"},
		{[]string{"forget"}, exitUsage, ""},
	}
	for _, s := range steps {
		code, out, errOut := runCommand(t, env, s.args...)
		if code != s.code || !strings.Contains(out, s.out) {
			t.Fatalf("%v: exit %d (want %d)\nstdout: %s\nstderr: %s", s.args, code, s.code, out, errOut)
		}
	}
	code, out, errOut := runCommand(t, env, "status", "--json")
	if code != exitOK {
		t.Fatalf("status: %d %s", code, errOut)
	}
	var got struct {
		Channels []runtime.ChannelStatus `json:"channels"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Channels) != 2 {
		t.Fatalf("status lists %d channels, want 2", len(got.Channels))
	}
	for _, c := range got.Channels {
		switch {
		case c.ID == "c1" && (c.LastTick == nil || c.LastTick.Outcome != "continue" || c.TokensToday != 24):
			t.Errorf("status of %s: %+v", c.ID, c)
		case c.ID == "c2" && (c.LastTick != nil || c.TokensToday != 0):
			t.Errorf("status of the forgotten %s: %+v", c.ID, c)
		}
		if (c.ID == "c1") != c.Paused {
			t.Errorf("%s paused = %v", c.ID, c.Paused)
		}
	}
	if code, _, _ := runCommand(t, env, "channel", "resume", "c1"); code != exitOK {
		t.Fatal("resume failed")
	}
	_, out, _ = runCommand(t, env, "status", "--json")
	if strings.Contains(out, `"paused":true`) {
		t.Errorf("still paused after resume: %s", out)
	}
}

// TestRetentionStopsTheFileGrowing writes 2,000 ticks, lets retention
// (AIRI_TICK_RETENTION=1s) delete them, writes as many again: the file
// stays the size it had, and airi db stats reports what was pruned.
func TestRetentionStopsTheFileGrowing(t *testing.T) {
	db := filepath.Join(t.TempDir(), "airi.db")
	seedOps(t, db, 0)
	cfg, err := loadConfig("", envOf(map[string]string{"AIRI_TICK_RETENTION": "1s", "DB_PATH": db}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, db, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	size := func() int64 {
		t.Helper()
		var total int64
		for _, suffix := range []string{"", "-wal"} {
			if info, err := os.Stat(db + suffix); err == nil {
				total += info.Size()
			}
		}
		return total
	}
	start := time.Now()
	var sizes []int64
	for round := range 3 {
		// The ticks of each round are recorded at a time already past
		// the retention of the next pass.
		addTicks(t, st, 2000, start.Add(time.Duration(round)*time.Minute))
		if err := runtime.RetentionPass(ctx, st, cfg.TickRetention, cfg.MessageRetention, start.Add(time.Duration(round+1)*time.Minute), zaptest.NewLogger(t)); err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, size())
	}
	if sizes[2] > sizes[0]+sizes[0]/10 {
		t.Errorf("the file grows under retention: %v bytes after each round", sizes)
	}
	code, out, errOut := runCommand(t, map[string]string{"DB_PATH": db}, "db", "stats", "--json")
	if code != exitOK {
		t.Fatalf("db stats: %d %s", code, errOut)
	}
	var stats struct {
		Pruned map[string]int64 `json:"pruned"`
		Tables []state.TableStats
	}
	if err := json.Unmarshal([]byte(out), &stats); err != nil {
		t.Fatal(err)
	}
	if stats.Pruned["ticks"] != 6000 {
		t.Errorf("pruned ticks %d, want 6000: %s", stats.Pruned["ticks"], out)
	}
}

func TestBackupWhileWriting(t *testing.T) {
	db := filepath.Join(t.TempDir(), "airi.db")
	seedOps(t, db, 10)
	ctx := context.Background()
	// A bot holds the lock and writes meanwhile.
	st, err := runtime.OpenSQLite(ctx, db, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	addTicks(t, st, 5, time.Now())
	backup := filepath.Join(t.TempDir(), "copy.db")
	code, out, errOut := runCommand(t, map[string]string{"DB_PATH": db}, "db", "backup", backup)
	if code != exitOK {
		t.Fatalf("backup: %d %s %s", code, out, errOut)
	}
	addTicks(t, st, 5, time.Now())
	code, out, errOut = runCommand(t, map[string]string{"DB_PATH": backup}, "ticks", "export")
	if code != exitOK {
		t.Fatalf("export from the backup: %d %s", code, errOut)
	}
	if n := strings.Count(out, `"type":"tick"`); n != 15 {
		t.Errorf("the backup holds %d ticks, want the 15 written before it", n)
	}
	if code, _, _ := runCommand(t, map[string]string{"DB_PATH": db}, "db", "backup", backup); code != exitUsage {
		t.Errorf("backup over an existing file: exit %d, want 2", code)
	}
}

// TestForgetUserNeedsAPlatformWhenAmbiguous checks that a bare user id
// that people of two platforms share is refused, and that the qualified
// one forgets that person alone.
func TestForgetUserNeedsAPlatformWhenAmbiguous(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "airi.db")
	st, err := sqlite.Open(ctx, db, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	for i, sender := range []string{"telegram:501", "qq:501"} {
		ch := fmt.Sprint("dm", i)
		if _, _, err := st.Ingest(ctx, state.Message{ChannelID: ch, PlatformID: "1", SenderID: sender, SenderName: "Ann", Content: "pin of " + sender, Time: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	env := map[string]string{"DB_PATH": db}
	code, _, stderr := runCommand(t, env, "forget", "--user", "501")
	if code != exitUsage || !strings.Contains(stderr, "qq:501") || !strings.Contains(stderr, "telegram:501") {
		t.Fatalf("forget --user 501 = %d, %q; want it refused naming both people", code, stderr)
	}
	if code, _, stderr := runCommand(t, env, "forget", "--user", "telegram:501"); code != exitOK {
		t.Fatalf("forget --user telegram:501 = %d, %s", code, stderr)
	}
	st, err = sqlite.Open(ctx, db, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ids, err := st.UserIDs(ctx, "501")
	if err != nil || len(ids) != 1 || ids[0] != "qq:501" {
		t.Errorf("after forgetting telegram:501, people with id 501 = %v, %v; want only qq:501", ids, err)
	}
}

// TestOperatorOutputStripsEscapes checks that chat-supplied text in the
// operator commands' tables cannot drive the terminal: a channel title
// with escape sequences and a line break prints as plain text.
func TestOperatorOutputStripsEscapes(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "airi.db")
	st, err := sqlite.Open(ctx, db, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	evil := "Club\x1b]0;owned\a\x1b[2J\nrow"
	if err := st.UpsertChannel(ctx, state.Channel{ID: "g1", Platform: "telegram", NativeID: "g1", Group: true, Title: evil}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.SaveNote(ctx, state.Note{Scope: state.ScopeChannel, Subject: "g1", Text: "likes \x1b[31mred"}, state.NoteLimits{}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	env := map[string]string{"DB_PATH": db}
	for _, args := range [][]string{{"status"}, {"channels"}, {"memory", "list"}, {"memory", "show", "1"}} {
		code, out, stderr := runCommand(t, env, args...)
		if code != exitOK {
			t.Fatalf("%v = %d: %s", args, code, stderr)
		}
		if strings.ContainsAny(out, "\x1b\a") {
			t.Errorf("%v prints an escape sequence: %q", args, out)
		}
		if args[0] != "memory" && !strings.Contains(out, "Club row") {
			t.Errorf("%v does not show the title as plain text: %q", args, out)
		}
	}
}
