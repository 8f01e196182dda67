package planner

import (
	"context"
	"fmt"
	"testing"
)

func TestChatCachesKeepTheMostRecent(t *testing.T) {
	c := newChatCaches(4)
	put := func(id string) { c.update(id, func(e *chatCache) { e.turns = []turnCount{{id: 1}} }) }
	for i := range 10 {
		put(fmt.Sprint("c", i))
		if c.len() > 4 {
			t.Fatalf("%d channels cached after %d, at most 4 wanted", c.len(), i+1)
		}
		switch i {
		case 6:
			// c4 and c5 are the older half now; c4 is used again, which
			// makes it recent.
			if c.get("c4").turns == nil {
				t.Fatal("c4, built two channels before, is gone")
			}
		case 7:
			// The older half is given up: c5 goes, c4 (used since) stays.
			if c.get("c5").turns != nil {
				t.Error("c5, not used since it was built, is still cached")
			}
			if c.get("c4").turns == nil {
				t.Error("c4, used again, is gone")
			}
		}
	}
	for _, id := range []string{"c9", "c8"} {
		if c.get(id).turns == nil {
			t.Errorf("%s, among the last built, is not cached", id)
		}
	}
	if c.get("c0").turns != nil {
		t.Error("c0, the first built, is still cached")
	}
}

// TestSystemStableAfterItsCacheIsGone builds a channel, then enough others
// that its cache is given up: its next request has the same system message
// and history bytes and the same token estimate.
func TestSystemStableAfterItsCacheIsGone(t *testing.T) {
	b := newTestBuilder(t, "", BuilderOptions{CachedChannels: 2})
	ctx := context.Background()
	in := fixture("telegram", true)
	first, err := b.Build(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		other := fixture("telegram", i%2 == 0)
		other.Channel.ID = fmt.Sprint("other", i)
		if _, err := b.Build(ctx, other); err != nil {
			t.Fatal(err)
		}
	}
	b.mu.Lock()
	cached := b.chats.get(in.Channel.ID).sys != nil
	n := b.chats.len()
	b.mu.Unlock()
	if cached || n > 2 {
		t.Fatalf("cache kept %d channels (first one cached: %v), want at most 2 without the first", n, cached)
	}
	again, err := b.Build(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Messages) != len(first.Messages) {
		t.Fatalf("%d messages, first %d", len(again.Messages), len(first.Messages))
	}
	for i := range first.Messages[:len(first.Messages)-1] {
		if !again.Messages[i].Equal(first.Messages[i]) {
			t.Errorf("message %d changed once the cache was gone:\n--- first\n%s\n--- again\n%s", i, first.Messages[i].Content, again.Messages[i].Content)
		}
	}
	if again.Tokens != first.Tokens {
		t.Errorf("estimate %d tokens, first %d", again.Tokens, first.Tokens)
	}
}
