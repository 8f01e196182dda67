package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
	"github.com/airi-go/airi/state/storetest"
)

func open(t testing.TB, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	return s
}

// openShared opens a second store on a file another store holds the lock
// of, as an operator's command beside the bot does.
func openShared(t testing.TB, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.OpenShared(context.Background(), path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatalf("open %s beside its holder: %v", path, err)
	}
	return s
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) state.Store {
		return open(t, filepath.Join(t.TempDir(), "airi.db"))
	})
}

func TestUpdateRetention(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "airi.db"))
	defer s.Close()
	storetest.RunUpdateRetention(t, s, func(now time.Time) { s.Now = func() time.Time { return now } })
}

// TestRestart closes the store and opens the same file again: everything
// written before is there, and reopening applies no migration twice.
func TestRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "nested", "airi.db") // parents are created
	s := open(t, path)
	seeded := storetest.Seed(t, s)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	for i := range 2 {
		s = open(t, path)
		if i == 0 {
			seeded.Check(t, s) // Check adds one message; the second round only reopens
		}
		if err := s.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
	db := rawDB(t, path)
	var version int
	if err := db.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version != sqlite.SchemaVersion() {
		t.Errorf("user_version after reopening = %d, want %d", version, sqlite.SchemaVersion())
	}
	var tables int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'messages'`).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 1 {
		t.Errorf("messages tables = %d, want 1", tables)
	}
}

func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestOpenSettings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "airi.db")
	s := open(t, path)
	defer s.Close()
	if s.Path() != path {
		t.Errorf("Path() = %q, want %q", s.Path(), path)
	}
	var mode string
	if err := rawDB(t, path).QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Errorf("journal_mode = %q, want wal", mode)
	}
}

func TestOpenRejects(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, path := range []string{"", " ", ":memory:", "file:x.db", filepath.Join(dir, "a.db?mode=ro")} {
		if s, err := sqlite.Open(ctx, path, zaptest.NewLogger(t)); err == nil {
			s.Close()
			t.Errorf("Open(%q): no error", path)
		}
	}
	// A file that is not a database is refused, and left alone.
	junk := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(junk, []byte(strings.Repeat("not a database\n", 512)), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := sqlite.Open(ctx, junk, zaptest.NewLogger(t)); err == nil {
		s.Close()
		t.Error("Open of a non-database file: no error")
	}
	if b, _ := os.ReadFile(junk); !strings.HasPrefix(string(b), "not a database") {
		t.Error("Open changed a non-database file")
	}
	// A parent that is a file cannot be created.
	s := open(t, filepath.Join(dir, "f.db"))
	s.Close()
	if s, err := sqlite.Open(ctx, filepath.Join(dir, "f.db", "x.db"), zaptest.NewLogger(t)); err == nil {
		s.Close()
		t.Error("Open under a file: no error")
	}
}

// TestTwoHandles writes through two stores on one file, as a second
// process (an export, a replay) would: the busy timeout and immediate
// transactions make them wait for each other instead of failing.
func TestTwoHandles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "airi.db")
	a, b := open(t, path), openShared(t, path)
	defer a.Close()
	defer b.Close()
	ctx := context.Background()
	const n = 100
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for _, s := range []*sqlite.Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				m := state.Message{ChannelID: "c", PlatformID: fmt.Sprint(i), Content: "x", Time: time.Unix(int64(i+1), 0)}
				if _, _, err := s.Ingest(ctx, m); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	u, err := a.Unread(ctx, "c", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(u) != n {
		t.Errorf("unread = %d, want %d", len(u), n)
	}
}

// TestConcurrentLoops runs what channel loops and adapters do at once:
// adapters ingest (with redeliveries) while loops read, mark read and
// record; under -race this checks the store's own synchronization, and at
// the end every message has been read exactly once.
func TestConcurrentLoops(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "airi.db"))
	defer s.Close()
	ctx := context.Background()
	const (
		channels = 4
		perChan  = 50
	)
	var (
		ingestWG sync.WaitGroup
		loopWG   sync.WaitGroup
		done     = make(chan struct{})
		errs     = make(chan error, 1000)
		mu       sync.Mutex
		readBy   = map[int64]int{}
		wake     = make([]chan struct{}, channels)
	)
	for c := range wake {
		wake[c] = make(chan struct{}, 1)
	}
	for a := range 2 { // two adapters delivering the same messages
		ingestWG.Add(1)
		go func() {
			defer ingestWG.Done()
			for i := range perChan {
				for c := range channels {
					m := state.Message{ChannelID: fmt.Sprint("c", c), PlatformID: fmt.Sprint(i), SenderName: fmt.Sprint("a", a),
						Content: "hello", Time: time.Unix(int64(i+1), 0)}
					_, isNew, err := s.Ingest(ctx, m)
					if err != nil {
						errs <- err
						return
					}
					if isNew {
						select { // wake the channel's loop, as the scheduler does
						case wake[c] <- struct{}{}:
						default:
						}
					}
				}
			}
		}()
	}
	for c := range channels {
		loopWG.Add(1)
		go func() {
			defer loopWG.Done()
			ch := fmt.Sprint("c", c)
			for {
				// After done, one last pass drains what the adapters wrote.
				finished := false
				select {
				case <-wake[c]:
				case <-done:
					finished = true
				}
				u, err := s.Unread(ctx, ch, 7)
				if err != nil {
					errs <- err
					return
				}
				if len(u) == 0 {
					if finished {
						return
					}
					continue
				}
				if len(u) == 7 { // more may be waiting
					select {
					case wake[c] <- struct{}{}:
					default:
					}
				}
				var ids []int64
				mu.Lock()
				for _, m := range u {
					ids = append(ids, m.ID)
					readBy[m.ID]++
				}
				mu.Unlock()
				if err := s.MarkRead(ctx, ids); err != nil {
					errs <- err
					return
				}
				if _, _, err := s.History(ctx, ch, 20); err != nil {
					errs <- err
					return
				}
				if _, err := s.AppendAction(ctx, state.ActionRecord{ChannelID: ch, Name: "read_unread_messages", OK: true}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	ingestWG.Wait()
	close(done)
	loopWG.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(readBy) != channels*perChan {
		t.Errorf("%d messages read, want %d", len(readBy), channels*perChan)
	}
	for id, n := range readBy {
		if n != 1 {
			t.Errorf("message %d read %d times", id, n)
		}
	}
	counts, err := s.UnreadCounts(ctx)
	if err != nil || len(counts) != 0 {
		t.Errorf("unread left: %v, %v", counts, err)
	}
}

// TestRecordTick records the end of ticks in one call: the action record,
// the trim of the history and the tick record, or the tick record alone.
func TestRecordTick(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "airi.db"))
	defer s.Close()
	const keep, over = 3, 5
	for i := range 6 {
		act := &state.ActionRecord{ChannelID: "c", Wake: int64(i), Name: "send_message", OK: true, Result: fmt.Sprint("sent ", i), Time: time.Unix(100, 0)}
		actID, tickID, err := s.RecordTick(ctx, act, keep, over, state.Tick{ChannelID: "c", Wake: int64(i), Trigger: "direct", Now: time.Unix(100+int64(i), 0), Result: act.Result})
		if err != nil || actID == 0 || tickID == 0 {
			t.Fatalf("RecordTick %d = %d, %d, %v", i, actID, tickID, err)
		}
	}
	acts, err := s.Actions(ctx, "c", 0)
	if err != nil {
		t.Fatal(err)
	}
	// The sixth record took the history over 5: the newest 3 are kept.
	if len(acts) != keep || acts[0].Result != "sent 3" || acts[2].Result != "sent 5" {
		t.Errorf("actions after the trim: %+v; want sent 3 to 5", acts)
	}
	actID, tickID, err := s.RecordTick(ctx, nil, keep, over, state.Tick{ChannelID: "c", Wake: 7, Trigger: "direct", Now: time.Unix(200, 0)})
	if err != nil || actID != 0 || tickID == 0 {
		t.Fatalf("RecordTick without an action = %d, %d, %v", actID, tickID, err)
	}
	ticks, err := s.Ticks(ctx, state.TickFilter{ChannelID: "c"})
	if err != nil || len(ticks) != 7 {
		t.Fatalf("%d ticks, %v; want 7", len(ticks), err)
	}
	if acts, _ := s.Actions(ctx, "c", 0); len(acts) != keep {
		t.Errorf("%d actions after a tick without one, want %d", len(acts), keep)
	}
	if _, _, err := s.RecordTick(ctx, &state.ActionRecord{Name: "x"}, keep, over, state.Tick{ChannelID: "c"}); err == nil {
		t.Error("RecordTick of an action without a channel succeeded")
	}
	if ticks, _ := s.Ticks(ctx, state.TickFilter{ChannelID: "c"}); len(ticks) != 7 {
		t.Errorf("a refused RecordTick stored a tick: %d ticks", len(ticks))
	}
}

// TestRecordSent marks a send done and stores the message sent in one
// call; for an unknown outbox entry it stores nothing.
func TestRecordSent(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "airi.db"))
	defer s.Close()
	id, err := s.AddOutbox(ctx, state.OutboxEntry{ChannelID: "c", Content: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	sent := func(pid string) state.Message {
		return state.Message{ChannelID: "c", PlatformID: pid, SenderName: "airi", Self: true, Content: "hello", Time: time.Unix(100, 0)}
	}
	if err := s.RecordSent(ctx, id, "p1", "", sent("p1")); err != nil {
		t.Fatal(err)
	}
	if pending, err := s.PendingOutbox(ctx); err != nil || len(pending) != 0 {
		t.Errorf("pending after RecordSent: %+v, %v; want none", pending, err)
	}
	hist, _, err := s.History(ctx, "c", 0)
	if err != nil || len(hist) != 1 || hist[0].PlatformID != "p1" || !hist[0].Read {
		t.Fatalf("history after RecordSent: %+v, %v; want the sent message, read", hist, err)
	}
	if err := s.RecordSent(ctx, id+100, "p2", "", sent("p2")); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("RecordSent of an unknown entry: %v, want ErrNotFound", err)
	}
	if hist, _, _ := s.History(ctx, "c", 0); len(hist) != 1 {
		t.Errorf("a refused RecordSent stored its message: %d in the history", len(hist))
	}
}

// TestIngestIn records a channel and stores a message of it in one write
// transaction, which later reads see; a message of another channel, or
// one that is not valid, stores neither.
func TestIngestIn(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "airi.db"))
	defer s.Close()
	ch := state.Channel{ID: "g1", Platform: "telegram", NativeID: "-100", Group: true, Title: "Night shift", Members: []string{"Ann"}}
	msg := state.Message{ChannelID: "g1", PlatformID: "m1", SenderID: "u1", SenderName: "Ann", Content: "evening", Time: time.Unix(100, 0)}
	w0 := s.Work()
	stored, isNew, err := s.IngestIn(ctx, ch, msg)
	if err != nil || !isNew || stored.ID == 0 {
		t.Fatalf("IngestIn: %+v, %v, %v; want a new stored message", stored, isNew, err)
	}
	if w := s.Work(); w.Writes-w0.Writes != 1 {
		t.Errorf("IngestIn used %d write transactions, want 1", w.Writes-w0.Writes)
	}
	got, err := s.Channel(ctx, "g1")
	if err != nil || got.Title != "Night shift" || !got.Group || len(got.Members) != 1 || got.Members[0] != "Ann" {
		t.Errorf("channel after IngestIn: %+v, %v", got, err)
	}
	if unread, err := s.Unread(ctx, "g1", 0); err != nil || len(unread) != 1 || unread[0].ID != stored.ID {
		t.Errorf("unread after IngestIn: %+v, %v; want the message", unread, err)
	}

	// The same message again is no new message, and the channel is
	// still updated (an empty title keeps the stored one).
	ch.Title, ch.Members = "", []string{"Ann", "Bo"}
	again, isNew, err := s.IngestIn(ctx, ch, msg)
	if err != nil || isNew || again.ID != stored.ID {
		t.Errorf("IngestIn of a stored message: %+v, %v, %v; want it, not new", again, isNew, err)
	}
	if got, _ := s.Channel(ctx, "g1"); got.Title != "Night shift" || len(got.Members) != 2 {
		t.Errorf("channel after the second IngestIn: %+v; want the title kept and two members", got)
	}

	other := state.Channel{ID: "g2", Platform: "telegram", NativeID: "-200", Group: true}
	if _, _, err := s.IngestIn(ctx, other, msg); err == nil {
		t.Error("IngestIn of a message of another channel: no error")
	}
	bad := state.Message{ChannelID: "g2", PlatformID: "m2", SenderID: "u1", Content: "hi"} // no time
	if _, _, err := s.IngestIn(ctx, other, bad); err == nil {
		t.Error("IngestIn of a message without a time: no error")
	}
	if _, err := s.Channel(ctx, "g2"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("a refused IngestIn recorded its channel: %v", err)
	}
}
