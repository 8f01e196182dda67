package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// memoReads are the reads the store answers from memory, as a channel
// loop asks them, made on s.
func memoReads(t *testing.T, s *sqlite.Store, channels []string) map[string]any {
	t.Helper()
	ctx := context.Background()
	out := map[string]any{}
	counts, err := s.UnreadCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out["counts"] = counts
	for _, ch := range channels {
		add := func(what string, v any, err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s of %s: %v", what, ch, err)
			}
			out[ch+" "+what] = v
		}
		for _, limit := range []int{0, 1, 3} {
			u, err := s.Unread(ctx, ch, limit)
			add(fmt.Sprint("unread ", limit), u, err)
		}
		for _, limit := range []int{0, 2, 20, 250} {
			h, total, err := s.History(ctx, ch, limit)
			add(fmt.Sprint("history ", limit), h, err)
			add(fmt.Sprint("history total ", limit), total, nil)
		}
		last, err := s.LastMessageID(ctx, ch)
		add("last", last, err)
		for _, after := range []int64{0, last - 3, last} {
			n, err := s.CountUnreadAfter(ctx, ch, after)
			add(fmt.Sprint("count after ", after-last), n, err)
		}
		for _, scan := range []int{0, 4, 100} {
			own, err := s.RecentOwn(ctx, ch, scan, 3)
			add(fmt.Sprint("own ", scan), own, err)
		}
		c, err := s.ChannelControl(ctx, ch)
		add("control", c, err)
		for _, limit := range []int{0, 2} {
			acts, err := s.Actions(ctx, ch, limit)
			add(fmt.Sprint("actions ", limit), acts, err)
		}
		stored, err := s.Channel(ctx, ch)
		if err != nil && !errors.Is(err, state.ErrNotFound) {
			t.Fatal(err)
		}
		out[ch+" channel"], out[ch+" channel stored"] = stored, err == nil
	}
	return out
}

// TestMemoMatchesDatabase runs random writes through a store, the way
// the runtime and an operator make them, and after each compares what
// the store answers (from memory, for the channels it keeps) with what a
// read-only store on the same file, which keeps nothing, reads.
func TestMemoMatchesDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "airi.db")
	s := open(t, path)
	defer s.Close()
	ctx := context.Background()
	ro, err := sqlite.OpenReadOnly(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()

	channels := []string{"a", "b", "c"}
	rng := rand.New(rand.NewPCG(7, 11))
	seq, platform := 0, 0
	at := time.Unix(1_700_000_000, 0)
	next := func() time.Time { seq++; return at.Add(time.Duration(seq) * time.Second) }
	var ops []string
	for step := range 1500 {
		ch := channels[rng.IntN(len(channels))]
		var op string
		switch k := rng.IntN(100); {
		case k < 35:
			op = "ingest"
			if rng.IntN(8) == 0 && len(channels) < 8 {
				// The first message of a channel not stored yet.
				ch = fmt.Sprint("new", step)
				channels = append(channels, ch)
			}
			platform++
			m := state.Message{ChannelID: ch, PlatformID: fmt.Sprint("p", platform), SenderID: fmt.Sprint("u", rng.IntN(3)),
				SenderName: "U", Content: fmt.Sprint("hello ", platform), Time: next(), Mentioned: rng.IntN(2) == 0}
			if rng.IntN(10) == 0 {
				m.PlatformID = fmt.Sprint("p", max(platform-1-rng.IntN(3), 1)) // a redelivery
			}
			if _, _, err := s.IngestIn(ctx, state.Channel{ID: ch, Platform: "telegram", NativeID: ch}, m); err != nil {
				t.Fatal(err)
			}
		case k < 55:
			op = "mark read"
			u, err := ro.Unread(ctx, ch, 0)
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, m := range u {
				if rng.IntN(3) > 0 {
					ids = append(ids, m.ID)
				}
			}
			switch rng.IntN(3) {
			case 0:
				ids = append(ids, 999_999) // unknown ids are ignored
			case 1:
				if len(ids) > 0 {
					ids = append(ids, ids[0]) // an id twice
				}
			}
			if err := s.MarkRead(ctx, ids); err != nil {
				t.Fatal(err)
			}
		case k < 70:
			op = "send"
			id, err := s.AddOutbox(ctx, state.OutboxEntry{ChannelID: ch, Content: "reply"})
			if err != nil {
				t.Fatal(err)
			}
			platform++
			if err := s.RecordSent(ctx, id, fmt.Sprint("s", platform), "", state.Message{ChannelID: ch, PlatformID: fmt.Sprint("s", platform),
				SenderID: "bot", SenderName: "airi", Self: true, Content: fmt.Sprint("reply ", platform), Time: next()}); err != nil {
				t.Fatal(err)
			}
		case k < 78:
			op = "decision"
			u, err := ro.Unread(ctx, ch, 2)
			if err != nil {
				t.Fatal(err)
			}
			ids := []int64{}
			for _, m := range u {
				ids = append(ids, m.ID)
			}
			if err := s.SetDecision(ctx, ids, fmt.Sprint("d", step)); err != nil {
				t.Fatal(err)
			}
		case k < 84:
			op = "control"
			if err := s.SetChannelControl(ctx, state.ChannelControl{ChannelID: ch, Paused: rng.IntN(2) == 0,
				PausedUntil: next().Add(123456789 * time.Nanosecond), Mode: "ambient"}); err != nil {
				t.Fatal(err)
			}
		case k < 88:
			op = "reset"
			if _, err := s.ResetChannel(ctx, ch); err != nil {
				t.Fatal(err)
			}
		case k < 90:
			op = "forget channel"
			if _, err := s.ForgetChannel(ctx, ch); err != nil {
				t.Fatal(err)
			}
		case k < 92:
			op = "forget user"
			if _, err := s.ForgetUser(ctx, fmt.Sprint("u", rng.IntN(3))); err != nil {
				t.Fatal(err)
			}
		case k < 94:
			op = "prune"
			if _, err := s.PruneMessages(ctx, at.Add(time.Duration(seq-20)*time.Second)); err != nil {
				t.Fatal(err)
			}
		case k < 97:
			op = "tick"
			act := &state.ActionRecord{ChannelID: ch, Wake: int64(step), Name: []string{"send_message", "continue", "read_unread"}[rng.IntN(3)], OK: true, Time: next()}
			if rng.IntN(4) == 0 {
				act = nil
			}
			if _, _, err := s.RecordTick(ctx, act, 3, 5, state.Tick{ChannelID: ch, Wake: int64(step), Now: next()}); err != nil {
				t.Fatal(err)
			}
		case k < 98:
			op = "append and trim"
			if _, err := s.AppendAction(ctx, state.ActionRecord{ChannelID: ch, Name: "sleep", Time: next()}); err != nil {
				t.Fatal(err)
			}
			if err := s.TrimActions(ctx, ch, 2, 4); err != nil {
				t.Fatal(err)
			}
		case k < 99:
			op = "clear actions"
			if err := s.ClearActions(ctx, ch); err != nil {
				t.Fatal(err)
			}
		default:
			op = "reads"
		}
		ops = append(ops, op+" "+ch)
		got, want := memoReads(t, s, append(channels, "never")), memoReads(t, ro, append(channels, "never"))
		if !reflect.DeepEqual(got, want) {
			for k, w := range want {
				if g := got[k]; !reflect.DeepEqual(g, w) {
					t.Errorf("%s: store answers %+v, the database holds %+v", k, g, w)
				}
			}
			t.Fatalf("after step %d (the last steps: %v)", step, ops[max(len(ops)-5, 0):])
		}
	}
}

// TestMemoSavesReads: once a channel's messages are in memory, the reads
// of a tick cost no statement, and writes keep them current.
func TestMemoSavesReads(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "airi.db"))
	defer s.Close()
	ctx := context.Background()
	ch := state.Channel{ID: "c", Platform: "telegram", NativeID: "c"}
	m, _, err := s.IngestIn(ctx, ch, state.Message{ChannelID: "c", PlatformID: "1", SenderName: "U", Content: "hi", Time: time.Unix(1, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Unread(ctx, "c", 20); err != nil { // reads the channel's view
		t.Fatal(err)
	}
	if err := s.MarkRead(ctx, []int64{m.ID}); err != nil {
		t.Fatal(err)
	}
	m2, _, err := s.IngestIn(ctx, ch, state.Message{ChannelID: "c", PlatformID: "2", SenderName: "U", Content: "there", Time: time.Unix(2, 0)})
	if err != nil {
		t.Fatal(err)
	}
	before := s.Work()
	u, err := s.Unread(ctx, "c", 20)
	if err != nil || len(u) != 1 || u[0].ID != m2.ID {
		t.Fatalf("unread = %v, %v; want message %d", u, err, m2.ID)
	}
	h, total, err := s.History(ctx, "c", 20)
	if err != nil || total != 1 || len(h) != 1 || h[0].ID != m.ID || !h[0].Read {
		t.Fatalf("history = %v (%d), %v; want message %d read", h, total, err, m.ID)
	}
	if last, err := s.LastMessageID(ctx, "c"); err != nil || last != m2.ID {
		t.Fatalf("last id = %d, %v; want %d", last, err, m2.ID)
	}
	if n, err := s.CountUnreadAfter(ctx, "c", m.ID); err != nil || n != 1 {
		t.Fatalf("unread after %d = %d, %v; want 1", m.ID, n, err)
	}
	if _, err := s.ChannelControl(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if counts, err := s.UnreadCounts(ctx); err != nil || counts["c"] != 1 {
		t.Fatalf("counts = %v, %v", counts, err)
	}
	if got, err := s.Channel(ctx, "c"); err != nil || got.ID != "c" {
		t.Fatalf("channel c = %+v, %v", got, err)
	}
	if _, err := s.Channel(ctx, "new chat"); !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("an unknown channel: %v, want ErrNotFound", err)
	}
	if has, err := s.HasNotes(ctx); err != nil || has {
		t.Fatalf("has notes = %v, %v; want none", has, err)
	}
	if d := s.Work().Statements - before.Statements; d != 0 {
		t.Errorf("the reads of a channel kept in memory ran %d statements, want 0", d)
	}
	// A note the store saves counts at once.
	if _, _, err := s.SaveNote(ctx, state.Note{Scope: state.ScopeGlobal, Text: "the harbour opens at six"}, state.DefaultNoteLimits(state.ScopeGlobal)); err != nil {
		t.Fatal(err)
	}
	if has, err := s.HasNotes(ctx); err != nil || !has {
		t.Errorf("has notes = %v, %v after a note was saved", has, err)
	}
}

// TestMemoConcurrent ingests, marks read and sends on many channels at
// once while other goroutines read them (so views are read from the
// database while commits change them), then compares every answer with
// the database. Under -race it checks the memo's locking.
func TestMemoConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "airi.db")
	s := open(t, path)
	defer s.Close()
	ctx := context.Background()
	const chans, perChan = 8, 40
	var channels []string
	for c := range chans {
		channels = append(channels, fmt.Sprint("ch", c))
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for _, ch := range channels {
		wg.Go(func() {
			for i := range perChan {
				m, _, err := s.IngestIn(ctx, state.Channel{ID: ch, Platform: "telegram", NativeID: ch},
					state.Message{ChannelID: ch, PlatformID: fmt.Sprint(i), SenderName: "U", Content: "x", Time: time.Unix(int64(i+1), 0)})
				if err != nil {
					t.Error(err)
					return
				}
				if i%3 == 0 {
					if err := s.MarkRead(ctx, []int64{m.ID}); err != nil {
						t.Error(err)
						return
					}
				}
				if i%5 == 0 {
					id, err := s.AddOutbox(ctx, state.OutboxEntry{ChannelID: ch, Content: "r"})
					if err == nil {
						err = s.RecordSent(ctx, id, fmt.Sprint("s", i), "", state.Message{ChannelID: ch, PlatformID: fmt.Sprint("s", i),
							SenderName: "airi", Self: true, Content: fmt.Sprint("r", i), Time: time.Unix(int64(i+1), 0)})
					}
					if err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	var readers sync.WaitGroup
	for r := range 3 {
		readers.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				ch := channels[(i+r)%len(channels)]
				if _, err := s.Unread(ctx, ch, 0); err != nil {
					t.Error(err)
				}
				if _, _, err := s.History(ctx, ch, 20); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	readers.Wait()

	ro, err := sqlite.OpenReadOnly(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	got, want := memoReads(t, s, channels), memoReads(t, ro, channels)
	for k, w := range want {
		if g := got[k]; !reflect.DeepEqual(g, w) {
			t.Errorf("%s: store answers %+v, the database holds %+v", k, g, w)
		}
	}
}
