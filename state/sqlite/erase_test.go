package sqlite

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/state"
)

// TestForgetLeavesNoTextInTheFile forgets a person and a chat and then
// reads the database file and its log as bytes, as `strings` would:
// none of the forgotten text is left in free pages, in an unreferenced
// prompt base or in the write-ahead log.
func TestForgetLeavesNoTextInTheFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "airi.db")
	s := openAt(t, path)
	now := time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
	secrets := map[string]string{"dm": "my pin is 4711-forgetme", "group": "the group secret 0815-forgetme", "club": "my \"club\" code 3333-forgetme"}
	keep := "a message that goes with its chat 2222-chatgone"
	for id, group := range map[string]bool{"dm": false, "group": true, "club": true} {
		ch := state.Channel{ID: id, Platform: "telegram", NativeID: id, Group: group}
		m := state.Message{ChannelID: id, PlatformID: "1", SenderID: "u1", SenderName: "Ann", Content: secrets[id], Time: now}
		if _, _, err := s.IngestIn(ctx, ch, m); err != nil {
			t.Fatal(err)
		}
		tk := state.Tick{ChannelID: id, Trigger: "direct", Now: now, Raw: `{"action":"continue"}`,
			Request: []state.ChatMessage{{Role: "system", Content: "You are airi."}, {Role: "user", Content: "Ann: " + secrets[id]},
				{Role: "user", Content: "New messages:\n" + strconv.Quote(secrets[id]) + " and Bo's \"stays 4444-kept\""}}}
		if _, _, err := s.RecordTick(ctx, nil, 20, 50, tk); err != nil {
			t.Fatal(err)
		}
	}
	other := state.Message{ChannelID: "group", PlatformID: "2", SenderID: "u2", SenderName: "Bo", Content: keep, Time: now}
	if _, _, err := s.Ingest(ctx, other); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ForgetUser(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ForgetChannel(ctx, "group"); err != nil {
		t.Fatal(err)
	}
	var file []byte
	for _, p := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		file = append(file, b...)
	}
	// The club keeps its tick records, without Ann's text.
	ticks, err := s.Ticks(ctx, state.TickFilter{ChannelID: "club"})
	if err != nil || len(ticks) != 1 || !strings.Contains(ticks[0].Request[2].Content, "4444-kept") {
		t.Errorf("the club's tick after forgetting Ann = %+v, %v; want it kept, with Bo's text", ticks, err)
	}
	for _, text := range []string{"4711-forgetme", "0815-forgetme", "2222-chatgone", "3333-forgetme"} {
		if bytes.Contains(file, []byte(text)) {
			t.Errorf("the database file still holds %q after forgetting", text)
		}
	}
}
