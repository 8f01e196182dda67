package telegram

import (
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
)

// TestUnreadableUpdateIsSkipped sends updates the adapter cannot decode
// among good ones, in one batch: each bad one is logged with its id and
// the reason, confirmed, and skipped; every good one is delivered.
func TestUnreadableUpdateIsSkipped(t *testing.T) {
	chat := map[string]any{"id": ann.ID, "type": "private", "first_name": "Ann"}
	from := map[string]any{"id": ann.ID, "is_bot": false, "first_name": "Ann"}
	tests := []struct {
		name string
		bad  map[string]any
	}{
		{"text is a number", map[string]any{"message": map[string]any{"message_id": 900, "date": 1, "chat": chat, "from": from, "text": 12345}}},
		{"message is a string", map[string]any{"message": "hello"}},
		{"chat id is text", map[string]any{"message": map[string]any{"message_id": 901, "date": 1, "chat": map[string]any{"id": "x", "type": "private"}, "text": "hi"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t)
			core, logs := observer.New(zapcore.InfoLevel)
			a, err := New(Config{Token: srv.Token(), APIBaseURL: srv.URL(), PollTimeout: time.Second, HTTPTimeout: 5 * time.Second},
				&memCursors{}, zap.New(core))
			if err != nil {
				t.Fatal(err)
			}
			ctx := ctxT(t)
			if err := a.Connect(ctx); err != nil {
				t.Fatal(err)
			}
			inbox := newInbox()
			srv.Post(telegramtest.Incoming{From: ann, Text: "before"})
			badID := srv.PostRaw(tt.bad)
			srv.Post(telegramtest.Incoming{From: ann, Text: "after"})

			next, err := a.Poll(ctx, inbox, 0)
			if err != nil {
				t.Fatalf("Poll: %v", err)
			}
			if next != badID+2 {
				t.Errorf("next offset %d, want %d (past the bad update and the one after it)", next, badID+2)
			}
			var got []string
			for _, m := range inbox.messages() {
				got = append(got, m.Content)
			}
			if len(got) != 2 || got[0] != "before" || got[1] != "after" {
				t.Errorf("delivered %q, want [before after]", got)
			}
			skipped := logs.FilterMessageSnippet("unreadable update").All()
			if len(skipped) != 1 {
				t.Fatalf("%d lines about the unreadable update, want 1: %v", len(skipped), logs.All())
			}
			if id := skipped[0].ContextMap()["update"]; id != int64(badID) {
				t.Errorf("logged update %v, want %d", id, badID)
			}
			if skipped[0].ContextMap()["error"] == "" {
				t.Error("the log line does not say why the update was unreadable")
			}
			// The next call confirms everything, the bad update included.
			if _, err := a.Poll(ctx, inbox, next); err != nil {
				t.Fatal(err)
			}
			if pending := srv.Pending(); len(pending) != 0 {
				t.Errorf("pending after confirmation: %v", pending)
			}
			a.ownHTTP.CloseIdleConnections()
		})
	}
}
