package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/airi-go/airi/state"
)

// UpsertChannel records a channel or updates it. An empty Title or a nil
// Members keeps what was stored, so an adapter that does not know them on
// every event does not erase them.
func (s *Store) UpsertChannel(ctx context.Context, ch state.Channel) error {
	args, err := channelArgs(ch)
	if err != nil {
		return err
	}
	unlock := s.chans.lock(ch.ID)
	defer unlock()
	s.chans.set(ch.ID, nil)
	var stored state.Channel
	err = s.writeStmt(ctx, upsertChannelSQL, func(ctx context.Context, st *sql.Stmt) (err error) {
		stored, err = scanChannel(st.QueryRowContext(ctx, args...))
		return err
	})
	if err != nil {
		return fmt.Errorf("upsert channel %q: %w", ch.ID, err)
	}
	s.chans.set(ch.ID, &stored)
	return nil
}

// IngestIn stores msg as Ingest does and records its channel ch as
// UpsertChannel does, in one transaction: the first message of a chat, or
// one whose sender joins a group's member list, costs one commit instead
// of two. Nothing is stored when either fails.
func (s *Store) IngestIn(ctx context.Context, ch state.Channel, msg state.Message) (state.Message, bool, error) {
	args, err := channelArgs(ch)
	if err != nil {
		return state.Message{}, false, err
	}
	if msg.ChannelID != ch.ID {
		return state.Message{}, false, fmt.Errorf("ingest message: it belongs to channel %q, not %q", msg.ChannelID, ch.ID)
	}
	if err := msg.Validate(); err != nil {
		return state.Message{}, false, fmt.Errorf("ingest message: %w", err)
	}
	in := ingestReady(msg)
	unlock := s.chans.lock(ch.ID)
	defer unlock()
	// The first message of a channel needs no read for the memo to know
	// the channel's messages. A channel that was not stored may still
	// have messages (Ingest asks for none), so the upsert tells.
	known, ok := s.chans.has(ch.ID)
	s.chans.set(ch.ID, nil)
	var stored state.Channel
	msg, isNew, err := s.ingestAfter(ctx, in, func(ctx context.Context, tx *sql.Tx) (empty bool, err error) {
		var found bool
		if stored, err = scanChannelAnd(s.txRow(ctx, tx, ingestChannelSQL, args...), &found); err != nil {
			return false, fmt.Errorf("upsert channel: %w", err)
		}
		return ok && !known && !found, nil
	})
	if err != nil {
		return state.Message{}, false, fmt.Errorf("ingest message %q in %q: %w", in.PlatformID, ch.ID, err)
	}
	s.chans.set(ch.ID, &stored)
	return msg, isNew, nil
}

// channelArgs validates ch and returns the arguments of upsertChannelSQL.
func channelArgs(ch state.Channel) ([]any, error) {
	if err := ch.Validate(); err != nil {
		return nil, fmt.Errorf("upsert channel: %w", err)
	}
	ch = ch.Clean()
	var members any // NULL keeps the stored members
	if ch.Members != nil {
		b, err := json.Marshal(ch.Members)
		if err != nil {
			return nil, fmt.Errorf("upsert channel %q: %w", ch.ID, err)
		}
		members = string(b)
	}
	return []any{ch.ID, ch.Platform, ch.NativeID, boolInt(ch.Group), ch.Title, members}, nil
}

const upsertChannelSQL = `
INSERT INTO channels (id, platform, native_id, grp, title, members)
VALUES (?1, ?2, ?3, ?4, ?5, coalesce(?6, '[]'))
ON CONFLICT (id) DO UPDATE SET
	platform  = excluded.platform,
	native_id = excluded.native_id,
	grp       = excluded.grp,
	title     = CASE WHEN excluded.title = '' THEN channels.title ELSE excluded.title END,
	members   = coalesce(?6, channels.members)
RETURNING ` + channelCols

// ingestChannelSQL is upsertChannelSQL that also returns whether the
// channel has any message.
const ingestChannelSQL = upsertChannelSQL + `, EXISTS (SELECT 1 FROM messages WHERE channel_id = ?1)`

const channelCols = `id, platform, native_id, grp, title, members`

func scanChannel(sc scanner) (state.Channel, error) { return scanChannelAnd(sc) }

// scanChannelAnd scans a row of channelCols, and into extra the columns
// that follow.
func scanChannelAnd(sc scanner, extra ...any) (state.Channel, error) {
	var (
		ch      state.Channel
		members string
	)
	if err := sc.Scan(append([]any{&ch.ID, &ch.Platform, &ch.NativeID, &ch.Group, &ch.Title, &members}, extra...)...); err != nil {
		return ch, err
	}
	if members != "" && members != "[]" {
		if err := json.Unmarshal([]byte(members), &ch.Members); err != nil {
			return ch, fmt.Errorf("decode members: %w", err)
		}
	}
	return ch, nil
}

// Channel returns one channel, or state.ErrNotFound.
func (s *Store) Channel(ctx context.Context, id string) (state.Channel, error) {
	if ch, found, ok := s.chans.get(id); ok {
		if !found {
			return state.Channel{}, fmt.Errorf("get channel %q: %w", id, state.ErrNotFound)
		}
		return ch, nil
	}
	gen := s.chans.generation()
	ch, err := scanChannel(s.row(ctx, `SELECT `+channelCols+` FROM channels WHERE id = ?`, id))
	if err == nil {
		s.chans.put(gen, ch)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return state.Channel{}, fmt.Errorf("get channel %q: %w", id, state.ErrNotFound)
	}
	if err != nil {
		return state.Channel{}, fmt.Errorf("get channel %q: %w", id, err)
	}
	return ch, nil
}

// Channels returns every known channel ordered by id.
func (s *Store) Channels(ctx context.Context) ([]state.Channel, error) {
	out, err := collect(scanChannel)(s.query(ctx, `SELECT `+channelCols+` FROM channels ORDER BY id`))
	if err != nil {
		return nil, fmt.Errorf("list channels: %w", err)
	}
	return out, nil
}

// channelCache keeps every stored channel, read at Open, so that the
// lookups of every message and tick cost no query, a new chat's first
// included (BenchmarkRuntimeTick). Only UpsertChannel and IngestIn
// change a channel, and only the process that owns the database writes
// it (cmd/airi takes a lock for that); a store opened read only, beside
// a running bot, keeps no cache. A write marks its channel stale before
// it writes, so that lookups read the database meanwhile, and sets the
// row it stored after; a read that began before either is not kept.
// Writes of one channel take their turn (lock), so that what the cache
// keeps is what the last one stored; those of different channels may
// share a commit.
type channelCache struct {
	upserts [channelLocks]sync.Mutex

	mu  sync.Mutex
	on  bool
	gen uint64
	m   map[string]state.Channel
	// stale are the channels whose write is running or failed: they
	// are read from the database.
	stale map[string]bool
}

// channelLocks is the number of locks the channels' writes are spread
// over.
const channelLocks = 64

// lock makes the writes of channel id take their turn; it returns the
// unlock.
func (c *channelCache) lock(id string) (unlock func()) {
	h := uint32(2166136261) // FNV-1a
	for i := 0; i < len(id); i++ {
		h = (h ^ uint32(id[i])) * 16777619
	}
	mu := &c.upserts[h%channelLocks]
	mu.Lock()
	return mu.Unlock
}

// load keeps every stored channel, read at Open, and turns the cache on.
func (c *channelCache) load(all []state.Channel) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = make(map[string]state.Channel, len(all))
	for _, ch := range all {
		c.m[ch.ID] = ch
	}
	c.stale = map[string]bool{}
	c.on = true
}

// get returns channel id and whether it is stored; ok is false when the
// database must be asked.
func (c *channelCache) get(id string) (ch state.Channel, found, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.on || c.stale[id] {
		return ch, false, false
	}
	ch, found = c.m[id]
	if found {
		ch.Members = slices.Clone(ch.Members)
	}
	return ch, found, true
}

// has reports whether channel id is stored; ok is false when the
// database must be asked.
func (c *channelCache) has(id string) (found, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.on || c.stale[id] {
		return false, false
	}
	_, found = c.m[id]
	return found, true
}

func (c *channelCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// put keeps ch, read when the cache was at generation gen.
func (c *channelCache) put(gen uint64, ch state.Channel) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.on || gen != c.gen {
		return
	}
	ch.Members = slices.Clone(ch.Members)
	c.m[ch.ID] = ch
	delete(c.stale, ch.ID)
}

// set keeps ch as channel id, or marks id stale when ch is nil, and
// makes the reads that began before it not kept.
func (c *channelCache) set(id string, ch *state.Channel) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if !c.on {
		return
	}
	if ch == nil {
		delete(c.m, id)
		c.stale[id] = true
		return
	}
	c.m[id] = *ch
	delete(c.stale, id)
}
