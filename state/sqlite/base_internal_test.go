package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/state"
)

// system is a system message of about 4 kB that ends with the chat's
// name, as the prompts' does; persona picks another text before it.
func system(persona, chat string) string {
	return strings.Repeat(persona+" speaks plainly and keeps the tide tables. ", 90) + "\nDirect chat \"" + chat + "\"."
}

func tickWith(ch string, req ...state.ChatMessage) state.Tick {
	return state.Tick{ChannelID: ch, Wake: 1, Now: time.Unix(1_700_000_000, 0), Request: req, Raw: "{}"}
}

// TestPromptBases: requests come back from Ticks as they were written,
// from this store, a store opened again and a read-only one, while the
// rows keep each shared system message once.
func TestPromptBases(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "airi.db")
	s := openAt(t, path)
	user := state.ChatMessage{Role: "user", Content: "state: 1 unread"}
	var want []state.Tick
	add := func(tk state.Tick, record bool) {
		t.Helper()
		var (
			id  int64
			err error
		)
		if record {
			_, id, err = s.RecordTick(ctx, nil, 20, 50, tk)
		} else {
			id, err = s.AddTick(ctx, tk)
		}
		if err != nil {
			t.Fatal(err)
		}
		tk.ID = id
		want = append(want, tk)
	}
	add(tickWith("a", state.ChatMessage{Role: "system", Content: system("Juni", "Ann")}, user), true)
	add(tickWith("b", state.ChatMessage{Role: "system", Content: system("Juni", "Bo")}, user), false)
	add(tickWith("c", state.ChatMessage{Role: "system", Content: system("Juni", "Cy")}, user), true)
	add(tickWith("d", state.ChatMessage{Role: "system", Content: system("Orla", "Di")}, user), true) // another persona
	add(tickWith("e", state.ChatMessage{Role: "system", Content: "short"}, user), true)
	add(tickWith("f", state.ChatMessage{Role: "user", Content: system("Juni", "no system message")}), true)
	empty := tickWith("g")
	empty.Request = []state.ChatMessage{}
	add(empty, true)
	add(tickWith("h", state.ChatMessage{Role: "system", Content: system("Juni", "Ann")}), true) // the same as a's
	want[len(want)-2].Request = nil                                                             // stored empty, read as nil

	check := func(name string, r interface {
		Ticks(context.Context, state.TickFilter) ([]state.Tick, error)
	}) {
		t.Helper()
		got, err := r.Ticks(ctx, state.TickFilter{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d ticks, want %d", name, len(got), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(got[i].Request, want[i].Request) {
				t.Errorf("%s: tick %d (%s) request differs from what was written", name, got[i].ID, got[i].ChannelID)
			}
		}
	}
	check("the writing store", s)

	var bases int
	if err := s.reader.QueryRow(`SELECT count(*) FROM prompt_bases`).Scan(&bases); err != nil {
		t.Fatal(err)
	}
	if bases != 2 {
		t.Errorf("%d prompt bases stored, want 2 (one per persona)", bases)
	}
	// Each tick whose system message shares a base, whether AddTick or
	// RecordTick wrote it, keeps only what follows the base.
	var stored int
	if err := s.reader.QueryRow(`SELECT max(length(request)) FROM ticks WHERE channel_id IN ('b', 'c', 'h')`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored > 200 {
		t.Errorf("the request of a tick whose system message shares a base keeps %d bytes, want only what follows the base", stored)
	}

	ro, err := OpenReadOnly(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	check("a read-only store", ro)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := openAt(t, path)
	check("the store opened again", s2)
}

// TestPruneBases: once no tick refers to a base, retention deletes it,
// unless the store may still write ticks with it.
func TestPruneBases(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, filepath.Join(t.TempDir(), "airi.db"))
	old, now := time.Unix(1_600_000_000, 0), time.Unix(1_700_000_000, 0)
	for i := range maxBases + 4 {
		tk := tickWith(fmt.Sprint("c", i), state.ChatMessage{Role: "system", Content: system(fmt.Sprint("persona ", i, ":"), "x")})
		tk.Now = old
		if i == 0 {
			tk.Now = now // the only tick retention keeps
		}
		if _, err := s.AddTick(ctx, tk); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		var n int
		if err := s.reader.QueryRow(`SELECT count(*) FROM prompt_bases`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != maxBases+4 {
		t.Fatalf("%d bases, want %d", n, maxBases+4)
	}
	// The first prune keeps every base used since the last one.
	if _, err := s.PruneTicks(ctx, now); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != maxBases+4 {
		t.Fatalf("%d bases after the first prune, want all %d", n, maxBases+4)
	}
	// The second deletes the unreferenced bases no longer kept in memory:
	// the oldest four, but the first, which the kept tick refers to.
	if _, err := s.PruneTicks(ctx, now); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != maxBases+1 {
		t.Errorf("%d bases after the second prune, want %d", n, maxBases+1)
	}
	got, err := s.Ticks(ctx, state.TickFilter{})
	if err != nil || len(got) != 1 || got[0].Request[0].Content != system("persona 0:", "x") {
		t.Fatalf("the kept tick: %v, %v", got, err)
	}
}
