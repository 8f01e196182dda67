package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/airi-go/airi/state"
)

// msg builds an incoming message in channel ch with platform id pid,
// sent n seconds after base.
func msg(ch, pid string, n int) state.Message {
	return state.Message{
		ChannelID:  ch,
		PlatformID: pid,
		SenderID:   "u-" + pid,
		SenderName: "User " + pid,
		Content:    "text " + pid,
		Time:       at(n),
	}
}

func ingest(t *testing.T, s state.Store, m state.Message) state.Message {
	t.Helper()
	got, isNew, err := s.Ingest(context.Background(), m)
	if err != nil {
		t.Fatalf("ingest %q: %v", m.PlatformID, err)
	}
	if !isNew {
		t.Fatalf("ingest %q: isNew = false for a new message", m.PlatformID)
	}
	return got
}

// normMsg strips what a store may legitimately change in a time value
// (location, monotonic reading), keeping the instant.
func normMsg(m state.Message) state.Message {
	m.Time = m.Time.UTC().Round(0)
	return m
}

func normMsgs(ms []state.Message) []state.Message {
	out := make([]state.Message, len(ms))
	for i, m := range ms {
		out[i] = normMsg(m)
	}
	return out
}

func ids(ms []state.Message) []int64 {
	out := make([]int64, 0, len(ms))
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

func testIngestNew(t *testing.T, s state.Store) {
	ctx := context.Background()
	in := msg("c1", "p1", 1)
	in.ReplyTo = "p0"
	in.Mentioned = true
	in.ReplyToSelf = true
	in.FromBot = true
	in.Time = in.Time.In(time.FixedZone("X", 3600))
	in.ID = 999 // assigned by the store, whatever the caller sets
	in.Read = true

	got, isNew, err := s.Ingest(ctx, in)
	if err != nil || !isNew {
		t.Fatalf("Ingest = %v, %v; want new", isNew, err)
	}
	if got.ID <= 0 {
		t.Fatalf("Ingest id = %d, want > 0", got.ID)
	}
	want := in
	want.ID = got.ID
	want.Read = false // an incoming message joins the unread pool
	equal(t, "Ingest result", normMsg(got), normMsg(want))

	unread, err := s.Unread(ctx, "c1", 0)
	if err != nil {
		t.Fatalf("Unread: %v", err)
	}
	equal(t, "stored message", normMsgs(unread), []state.Message{normMsg(want)})

	// Ids increase in arrival order, across channels.
	prev := got.ID
	for i, m := range []state.Message{msg("c2", "p1", 2), msg("c1", "p2", 0), msg("c1", "", 3)} {
		got := ingest(t, s, m)
		if got.ID <= prev {
			t.Errorf("message %d: id %d not after %d", i, got.ID, prev)
		}
		prev = got.ID
	}
}

func testIngestDuplicate(t *testing.T, s state.Store) {
	ctx := context.Background()
	first := ingest(t, s, msg("c1", "p1", 1))

	dup := msg("c1", "p1", 5)
	dup.Content = "edited"
	got, isNew, err := s.Ingest(ctx, dup)
	if err != nil {
		t.Fatalf("Ingest duplicate: %v", err)
	}
	if isNew {
		t.Error("Ingest duplicate: isNew = true")
	}
	equal(t, "duplicate returns the stored message", normMsg(got), normMsg(first))

	// A duplicate of a message already read stays read.
	if err := s.MarkRead(ctx, []int64{first.ID}); err != nil {
		t.Fatalf("MarkRead: %v", err)
	}
	got, isNew, err = s.Ingest(ctx, dup)
	if err != nil || isNew {
		t.Fatalf("Ingest duplicate after read = %v, %v", isNew, err)
	}
	if !got.Read || got.ID != first.ID {
		t.Errorf("duplicate after read = id %d read %v, want id %d read", got.ID, got.Read, first.ID)
	}
	if u, _ := s.Unread(ctx, "c1", 0); len(u) != 0 {
		t.Errorf("duplicate rejoined the unread pool: %v", u)
	}

	// The same platform id in another channel is another message.
	other := ingest(t, s, msg("c2", "p1", 1))
	if other.ID == first.ID {
		t.Error("same platform id in another channel was deduplicated")
	}
	// Messages without a platform id are never deduplicated.
	a := ingest(t, s, msg("c1", "", 2))
	b := ingest(t, s, msg("c1", "", 2))
	if a.ID == b.ID {
		t.Error("messages without platform id were deduplicated")
	}
	_, total, err := s.History(ctx, "c1", 0)
	if err != nil {
		t.Fatalf("History: %v", err)
	}
	unread, err := s.Unread(ctx, "c1", 0)
	if err != nil {
		t.Fatalf("Unread: %v", err)
	}
	if total+len(unread) != 3 {
		t.Errorf("channel c1 holds %d messages, want 3", total+len(unread))
	}
}

func testIngestSelf(t *testing.T, s state.Store) {
	ctx := context.Background()
	own := msg("c1", "p1", 1)
	own.Self = true
	own.SenderName = "airi"
	got := ingest(t, s, own)
	if !got.Read {
		t.Error("own message returned unread")
	}
	u, err := s.Unread(ctx, "c1", 0)
	if err != nil || len(u) != 0 {
		t.Errorf("Unread after own message = %v, %v; want none", u, err)
	}
	counts, err := s.UnreadCounts(ctx)
	if err != nil || len(counts) != 0 {
		t.Errorf("UnreadCounts after own message = %v, %v; want empty", counts, err)
	}
	h, total, err := s.History(ctx, "c1", 10)
	if err != nil {
		t.Fatalf("History: %v", err)
	}
	if total != 1 || len(h) != 1 || !h[0].Self || h[0].ID != got.ID {
		t.Errorf("History = %v (total %d), want the own message", h, total)
	}
	// Marking it read again changes nothing.
	if err := s.MarkRead(ctx, []int64{got.ID}); err != nil {
		t.Errorf("MarkRead own: %v", err)
	}
	// An echo of the own message (same platform id) is stored once.
	if _, isNew, err := s.Ingest(ctx, own); err != nil || isNew {
		t.Errorf("echo of own message = %v, %v; want duplicate", isNew, err)
	}
}

func testIngestInvalid(t *testing.T, s state.Store) {
	ctx := context.Background()
	long := msg("c1", "p3", 1)
	long.Content = string(make([]byte, state.MaxContentBytes+1))
	tests := []struct {
		name string
		m    state.Message
	}{
		{"empty channel", msg("", "p1", 1)},
		{"zero time", state.Message{ChannelID: "c1", PlatformID: "p2", Content: "x"}},
		{"content too long", long},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := s.Ingest(ctx, tt.m); err == nil {
				t.Error("no error")
			}
		})
	}
	if ev, err := s.Events(ctx, state.TickFilter{}); err != nil || len(ev) != 0 {
		t.Errorf("invalid messages were stored: %v, %v", ev, err)
	}
}

func testIngestConcurrent(t *testing.T, s state.Store) {
	ctx := context.Background()
	const (
		workers  = 8
		distinct = 40
	)
	// Every worker ingests the same messages (an adapter redelivering, two
	// adapters racing), in a different order.
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		news = map[string]int64{}
		seen = map[string]map[int64]bool{}
		errs []error
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range distinct {
				k := (i + w*7) % distinct
				ch := fmt.Sprintf("c%d", k%3)
				pid := fmt.Sprintf("p%d", k)
				got, isNew, err := s.Ingest(ctx, msg(ch, pid, k))
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else {
					key := ch + "/" + pid
					if isNew {
						if _, dup := news[key]; dup {
							errs = append(errs, fmt.Errorf("%s stored as new twice", key))
						}
						news[key] = got.ID
					}
					if seen[key] == nil {
						seen[key] = map[int64]bool{}
					}
					seen[key][got.ID] = true
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	if len(news) != distinct {
		t.Errorf("%d messages stored as new, want %d", len(news), distinct)
	}
	for key, idset := range seen {
		if len(idset) != 1 || !idset[news[key]] {
			t.Errorf("%s: ingest returned ids %v, want only %d", key, idset, news[key])
		}
	}
	counts, err := s.UnreadCounts(ctx)
	if err != nil {
		t.Fatalf("UnreadCounts: %v", err)
	}
	sum := 0
	for _, n := range counts {
		sum += n
	}
	if sum != distinct {
		t.Errorf("unread total %d, want %d (counts %v)", sum, distinct, counts)
	}
}

func testUnread(t *testing.T, s state.Store) {
	ctx := context.Background()
	var c1 []state.Message
	for i := range 5 {
		c1 = append(c1, normMsg(ingest(t, s, msg("c1", fmt.Sprint("p", i), 10-i))))
		ingest(t, s, msg("c2", fmt.Sprint("p", i), i))
	}
	tests := []struct {
		limit int
		want  []state.Message
	}{
		{0, c1},
		{-1, c1},
		{2, c1[:2]}, // oldest first: by arrival, not by message time
		{5, c1},
		{50, c1},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint("limit ", tt.limit), func(t *testing.T) {
			got, err := s.Unread(ctx, "c1", tt.limit)
			if err != nil {
				t.Fatalf("Unread: %v", err)
			}
			equal(t, "Unread", normMsgs(got), tt.want)
		})
	}
	if got, err := s.Unread(ctx, "unknown", 0); err != nil || len(got) != 0 {
		t.Errorf("Unread(unknown) = %v, %v; want none", got, err)
	}
}

func testCountUnreadAfter(t *testing.T, s state.Store) {
	ctx := context.Background()
	var c1 []state.Message
	for i := range 4 {
		c1 = append(c1, ingest(t, s, msg("c1", fmt.Sprint("p", i), i)))
		ingest(t, s, msg("c2", fmt.Sprint("p", i), i))
	}
	if err := s.MarkRead(ctx, []int64{c1[3].ID}); err != nil {
		t.Fatalf("MarkRead: %v", err)
	}
	tests := []struct {
		name    string
		channel string
		after   int64
		want    int
	}{
		{"all", "c1", 0, 3},
		{"after the first", "c1", c1[0].ID, 2},
		{"after the last unread", "c1", c1[2].ID, 0}, // c1[3] is read
		{"after everything", "c1", c1[3].ID, 0},
		{"unknown channel", "unknown", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.CountUnreadAfter(ctx, tt.channel, tt.after)
			if err != nil || got != tt.want {
				t.Errorf("CountUnreadAfter(%q, %d) = %d, %v; want %d", tt.channel, tt.after, got, err, tt.want)
			}
		})
	}
}

func testUnreadCounts(t *testing.T, s state.Store) {
	ctx := context.Background()
	counts, err := s.UnreadCounts(ctx)
	if err != nil || len(counts) != 0 {
		t.Errorf("UnreadCounts on empty store = %v, %v", counts, err)
	}
	var readIDs []int64
	for i := range 3 {
		ingest(t, s, msg("a", fmt.Sprint("p", i), i))
	}
	readIDs = append(readIDs, ingest(t, s, msg("b", "p0", 0)).ID)
	own := msg("c", "p0", 0)
	own.Self = true
	ingest(t, s, own)
	ingest(t, s, msg("d", "p0", 0))
	if err := s.MarkRead(ctx, readIDs); err != nil {
		t.Fatalf("MarkRead: %v", err)
	}
	counts, err = s.UnreadCounts(ctx)
	if err != nil {
		t.Fatalf("UnreadCounts: %v", err)
	}
	equal(t, "UnreadCounts (channels with none omitted)", counts, map[string]int{"a": 3, "d": 1})
}

func testMarkRead(t *testing.T, s state.Store) {
	ctx := context.Background()
	var all []state.Message
	for i := range 6 {
		all = append(all, ingest(t, s, msg("c1", fmt.Sprint("p", i), i)))
	}
	other := ingest(t, s, msg("c2", "p0", 0))

	if err := s.MarkRead(ctx, nil); err != nil {
		t.Errorf("MarkRead(nil): %v", err)
	}
	// Exactly these: 1, 3, an unknown id and a repeat; a message that
	// arrived meanwhile (4, 5) stays unread.
	if err := s.MarkRead(ctx, []int64{all[1].ID, all[3].ID, all[3].ID, 1 << 40}); err != nil {
		t.Fatalf("MarkRead: %v", err)
	}
	u, err := s.Unread(ctx, "c1", 0)
	if err != nil {
		t.Fatalf("Unread: %v", err)
	}
	equal(t, "unread ids", ids(u), []int64{all[0].ID, all[2].ID, all[4].ID, all[5].ID})
	h, total, err := s.History(ctx, "c1", 0)
	if err != nil {
		t.Fatalf("History: %v", err)
	}
	equal(t, "history ids", ids(h), []int64{all[1].ID, all[3].ID})
	if total != 2 || !h[0].Read {
		t.Errorf("history total %d read %v, want 2 read", total, h[0].Read)
	}
	if u, _ := s.Unread(ctx, "c2", 0); len(u) != 1 || u[0].ID != other.ID {
		t.Errorf("other channel's unread changed: %v", u)
	}

	// A large batch in one call.
	many := append(ids(all), other.ID)
	for i := range 1200 {
		many = append(many, 1<<41+int64(i))
	}
	if err := s.MarkRead(ctx, many); err != nil {
		t.Fatalf("MarkRead of %d ids: %v", len(many), err)
	}
	if counts, _ := s.UnreadCounts(ctx); len(counts) != 0 {
		t.Errorf("after marking every id: unread %v", counts)
	}
}

func testHistory(t *testing.T, s state.Store) {
	ctx := context.Background()
	var read []int64
	for i := range 8 {
		m := msg("c1", fmt.Sprint("p", i), i)
		if i%3 == 2 {
			m.Self = true
		}
		got := ingest(t, s, m)
		if i != 6 { // 6 stays unread
			read = append(read, got.ID)
		}
	}
	ingest(t, s, msg("c2", "p0", 0))
	if err := s.MarkRead(ctx, read); err != nil {
		t.Fatalf("MarkRead: %v", err)
	}
	// read holds ids 0-5 and 7 in order; 6 is unread and not history.
	tests := []struct {
		limit int
		want  []int64
	}{
		{0, read},
		{3, read[len(read)-3:]},
		{1, read[len(read)-1:]},
		{100, read},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint("limit ", tt.limit), func(t *testing.T) {
			h, total, err := s.History(ctx, "c1", tt.limit)
			if err != nil {
				t.Fatalf("History: %v", err)
			}
			equal(t, "History ids (newest limit, oldest first)", ids(h), tt.want)
			if total != len(read) {
				t.Errorf("total = %d, want %d", total, len(read))
			}
		})
	}
	h, total, err := s.History(ctx, "none", 5)
	if err != nil || len(h) != 0 || total != 0 {
		t.Errorf("History(unknown) = %v, %d, %v", h, total, err)
	}
}

func testLastMessageID(t *testing.T, s state.Store) {
	ctx := context.Background()
	if id, err := s.LastMessageID(ctx, "c1"); err != nil || id != 0 {
		t.Errorf("LastMessageID on empty = %d, %v; want 0", id, err)
	}
	a := ingest(t, s, msg("c1", "p1", 1))
	if err := s.MarkRead(ctx, []int64{a.ID}); err != nil {
		t.Fatal(err)
	}
	b := ingest(t, s, msg("c1", "p2", 2)) // unread
	ingest(t, s, msg("c2", "p3", 3))
	if id, err := s.LastMessageID(ctx, "c1"); err != nil || id != b.ID {
		t.Errorf("LastMessageID = %d, %v; want %d (the unread one)", id, err, b.ID)
	}
	own := msg("c1", "p4", 4)
	own.Self = true
	c := ingest(t, s, own)
	if id, err := s.LastMessageID(ctx, "c1"); err != nil || id != c.ID {
		t.Errorf("LastMessageID = %d, %v; want %d (the own one)", id, err, c.ID)
	}
}

func testEvents(t *testing.T, s state.Store) {
	ctx := context.Background()
	var all, c1 []state.Message
	for i := range 8 {
		m := msg(fmt.Sprint("c", i%2+1), fmt.Sprint("p", i), i)
		if i == 2 || i == 5 {
			m.Self = true
		}
		got := ingest(t, s, m)
		if i == 0 {
			if err := s.MarkRead(ctx, []int64{got.ID}); err != nil {
				t.Fatal(err)
			}
			got.Read = true
		}
		if m.Self {
			continue
		}
		all = append(all, normMsg(got))
		if m.ChannelID == "c1" {
			c1 = append(c1, normMsg(got))
		}
	}
	tests := []struct {
		name string
		f    state.TickFilter
		want []state.Message
	}{
		{"all incoming, read or not", state.TickFilter{}, all},
		{"one channel", state.TickFilter{ChannelID: "c1"}, c1},
		{"since is inclusive", state.TickFilter{Since: at(3)}, all[2:]},
		{"channel and since", state.TickFilter{ChannelID: "c1", Since: at(4)}, c1[1:]},
		{"unknown channel", state.TickFilter{ChannelID: "zz"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Events(ctx, tt.f)
			if err != nil {
				t.Fatalf("Events: %v", err)
			}
			if len(got) == 0 && len(tt.want) == 0 {
				return
			}
			equal(t, "Events", normMsgs(got), tt.want)
		})
	}
}
