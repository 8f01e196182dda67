package satori_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/airi-go/airi/adapters/satori/satoritest"
)

// TestUnreadableEventIsSkipped pushes an event the adapter cannot decode
// between two good ones: it is skipped with its sequence number confirmed,
// and the message after it is delivered.
func TestUnreadableEventIsSkipped(t *testing.T) {
	for _, rv := range revisions {
		t.Run(rv.name, func(t *testing.T) {
			srv := satoritest.NewServer(satoritest.Options{Revision: rv.rev})
			defer srv.Close()
			in := newInbox()
			cur := &cursors{}
			a := start(t, testConfig(srv), cur, in)
			channel := map[string]any{"id": "g", "type": 0}
			guild := map[string]any{"id": "g"}
			user := map[string]any{"id": "u1", "name": "Ann"}
			srv.PushEvent("message-created", 0, map[string]any{"channel": channel, "guild": guild, "user": user,
				"message": map[string]any{"id": "m1", "content": "before"}})
			bad := srv.PushEvent("message-created", 0, map[string]any{"channel": channel, "guild": guild, "user": user,
				"message": map[string]any{"id": "m2", "content": 12345}})
			// Confirmed although nothing was delivered for it.
			cur.wait(t, a.CursorKey(), strconv.FormatInt(bad, 10))
			last := srv.PushEvent("message-created", 0, map[string]any{"channel": channel, "guild": guild, "user": user,
				"message": map[string]any{"id": "m3", "content": "after"}})
			got := in.wait(t, 2)
			if len(got) != 2 || got[0].msg.Content != "before" || got[1].msg.Content != "after" {
				t.Fatalf("delivered %+v, want before and after", got)
			}
			cur.wait(t, a.CursorKey(), strconv.FormatInt(last, 10))
		})
	}
}

// TestMessagesWithoutIDGetDistinctIDs delivers messages that carry no
// message id: each gets an id of its own, never one shared.
func TestMessagesWithoutIDGetDistinctIDs(t *testing.T) {
	srv := satoritest.NewServer(satoritest.Options{})
	defer srv.Close()
	in := newInbox()
	start(t, testConfig(srv), &cursors{}, in)
	for _, text := range []string{"same", "same", "other"} {
		srv.PushEvent("message-created", 0, map[string]any{
			"channel": map[string]any{"id": "g", "type": 0}, "guild": map[string]any{"id": "g"},
			"user": map[string]any{"id": "u1", "name": "Ann"}, "message": map[string]any{"content": text},
		})
	}
	got := in.wait(t, 3)
	seen := map[string]bool{}
	for _, d := range got {
		id := d.msg.PlatformID
		if id == "" || seen[id] {
			t.Errorf("message %q has id %q, empty or shared", d.msg.Content, id)
		}
		seen[id] = true
		if !strings.HasPrefix(id, "local-") {
			t.Errorf("made id %q, want it marked local", id)
		}
	}
}
