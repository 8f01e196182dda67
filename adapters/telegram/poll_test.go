package telegram

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	ta "github.com/mymmrac/telego/telegoapi"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/state"
)

func TestPollWait(t *testing.T) {
	network := errors.New("connection reset")
	flood := &ta.Error{ErrorCode: http.StatusTooManyRequests, Parameters: &ta.ResponseParameters{RetryAfter: 42}}
	conflict := &ta.Error{ErrorCode: http.StatusConflict, Description: "Conflict: terminated by other getUpdates request"}
	tests := []struct {
		name string
		n    int
		err  error
		want time.Duration
	}{
		{"first failure", 1, network, 500 * time.Millisecond},
		{"doubles", 4, network, 4 * time.Second},
		{"last doubling", 6, network, 16 * time.Second},
		{"capped", 7, network, 30 * time.Second},
		{"retry_after as asked", 1, flood, 42 * time.Second},
		{"another poller", 3, conflict, 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pollWait(tt.n, tt.err); got != tt.want {
				t.Errorf("pollWait(%d, %v) = %v, want %v", tt.n, tt.err, got, tt.want)
			}
		})
	}
}

// TestPollSkipsAnUpdateTheStoreRefuses checks that an update the store
// refuses alone (as PostgreSQL refused a NUL byte) is retried, then
// skipped with its reason recorded, so that the updates after it arrive;
// while the store refuses everything, nothing is skipped.
func TestPollSkipsAnUpdateTheStoreRefuses(t *testing.T) {
	srv := startServer(t)
	cursors := &memCursors{}
	a := newAdapter(t, srv, cursors)
	t.Cleanup(a.ownHTTP.CloseIdleConnections)
	ctx := ctxT(t)
	if err := a.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	inbox := newInbox()
	down := true
	inbox.fail = func(_ context.Context, m state.Message) error {
		if down || m.Content == "poison" {
			return errors.New("invalid byte sequence")
		}
		return nil
	}
	srv.Post(telegramtest.Incoming{From: ann, Text: "poison"})
	srv.Post(telegramtest.Incoming{Chat: sg, From: bob, Text: "fine"})
	offset := 0
	for range MaxUpdateAttempts + 2 {
		next, err := a.Poll(ctx, inbox, offset)
		if err == nil || next != offset {
			t.Fatalf("store down: offset %d -> %d, %v; want the same offset and an error", offset, next, err)
		}
	}
	down = false
	for i := 1; i < MaxUpdateAttempts; i++ {
		next, err := a.Poll(ctx, inbox, offset)
		if err == nil || next != offset {
			t.Fatalf("attempt %d: offset %d -> %d, %v; want it held while retrying", i, offset, next, err)
		}
	}
	next, err := a.Poll(ctx, inbox, offset)
	if err != nil || next != 3 {
		t.Fatalf("attempt %d: offset %d, %v; want the poison skipped (offset 3)", MaxUpdateAttempts, next, err)
	}
	if got := inbox.messages(); len(got) != 1 || got[0].Content != "fine" {
		t.Fatalf("delivered %+v; want only the fine message", got)
	}
	var reason string
	for k, v := range cursors.m {
		if strings.Contains(k, ":skipped:1") {
			reason = v
		}
	}
	if !strings.Contains(reason, "invalid byte sequence") {
		t.Errorf("skipped update recorded as %q; want its reason (cursors %v)", reason, cursors.m)
	}
	srv.Post(telegramtest.Incoming{From: ann, Text: "after"})
	if next, err = a.Poll(ctx, inbox, next); err != nil || next != 4 || len(inbox.messages()) != 2 {
		t.Fatalf("after the skip: offset %d, %d delivered, %v", next, len(inbox.messages()), err)
	}
}
