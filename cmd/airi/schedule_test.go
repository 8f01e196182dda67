package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

func TestScheduleCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "airi.db")
	st, err := sqlite.Open(context.Background(), db, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	due := time.Date(2030, 3, 1, 8, 0, 0, 0, time.UTC)
	for _, r := range []state.Reminder{
		{ChannelID: "c1", Content: "call the vet", Due: due, Zone: "Europe/Berlin", Every: "daily"},
		{ChannelID: "c2", Content: "water the plants", Due: due.Add(time.Hour), Zone: "UTC"},
	} {
		if _, err := st.AddReminder(context.Background(), r, state.ReminderLimits{}); err != nil {
			t.Fatal(err)
		}
	}
	_ = st.Close()

	out, errOut, code := runAiri(t, db, "", "schedule", "list")
	if code != 0 || !strings.Contains(out, "1\tc1\tFri 1 Mar 2030 09:00 CET\tevery daily\t\"call the vet\"") || !strings.Contains(out, "2\tc2") {
		t.Fatalf("list = %d %q %q", code, out, errOut)
	}
	out, _, code = runAiri(t, db, "", "schedule", "list", "--channel", "c2", "--json")
	var rs []state.Reminder
	if code != 0 || json.Unmarshal([]byte(out), &rs) != nil || len(rs) != 1 || rs[0].Content != "water the plants" {
		t.Fatalf("list --json = %d %q", code, out)
	}
	if out, errOut, code = runAiri(t, db, "", "schedule", "cancel", "1"); code != 0 || !strings.Contains(out, "cancelled reminder 1") {
		t.Fatalf("cancel = %d %q %q", code, out, errOut)
	}
	if _, errOut, code = runAiri(t, db, "", "schedule", "cancel", "1"); code != 1 || !strings.Contains(errOut, "no pending reminder 1") {
		t.Fatalf("cancel twice = %d %q", code, errOut)
	}
	if _, _, code = runAiri(t, db, "", "schedule", "cancel", "x"); code != 2 {
		t.Fatalf("cancel x = %d, want 2", code)
	}
	if out, _, code = runAiri(t, db, "", "schedule", "list", "--channel", "c1"); code != 0 || !strings.Contains(out, "no pending reminders") {
		t.Fatalf("list after cancel = %d %q", code, out)
	}
}
