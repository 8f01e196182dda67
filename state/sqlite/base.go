package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/airi-go/airi/state"
)

// Prompt bases. A tick's request begins with the system message, which is
// most of the request (about 4 kB of the default prompts' 4.6 kB) and
// nearly the same on every tick: only its last lines name the chat. The
// store keeps such a message once, as a base in prompt_bases, and a tick
// keeps the base's id, how many bytes of it its system message starts
// with (base_len) and, in the request, the rest. A tick row then fits in
// its page instead of spilling into overflow pages, which a commit
// writes to the WAL and a checkpoint copies again.
//
// A system message shorter than minBase is kept whole. One sharing fewer
// than minShared bytes with every base kept in memory becomes a base
// itself, in the transaction of its tick. Bases no tick refers to go with
// the retention of ticks.
const (
	minBase   = 1024
	minShared = 512
	// maxBases bounds the bases kept in memory for the ticks written,
	// and maxBaseTexts those kept for the ticks read.
	maxBases     = 16
	maxBaseTexts = 64
)

// promptBase is one stored base.
type promptBase struct {
	id   int64
	text string
}

// bases are the bases the store keeps in memory.
type bases struct {
	mu sync.Mutex
	// recent are the bases ticks were written with, newest use first.
	recent []promptBase
	// texts are bases read for ticks being read.
	texts map[int64]string
	// used are the bases picked or added since the last prune: a tick
	// written with one may not be committed yet, even once it has left
	// recent, so the next prune keeps them all.
	used map[int64]bool
}

// pick returns the kept base that shares the longest start with text
// (at least minShared bytes) and that length, and moves it first.
func (b *bases) pick(text string) (promptBase, int, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	best, bestN := -1, minShared-1
	for i, pb := range b.recent {
		if n := sharedPrefix(pb.text, text); n > bestN {
			best, bestN = i, n
		}
	}
	if best < 0 {
		return promptBase{}, 0, false
	}
	pb := b.recent[best]
	copy(b.recent[1:best+1], b.recent[:best])
	b.recent[0] = pb
	b.use(pb.id)
	return pb, bestN, true
}

// add keeps a base just stored, first.
func (b *bases) add(pb promptBase) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.recent = slices.Insert(b.recent, 0, pb)
	if len(b.recent) > maxBases {
		b.recent = b.recent[:maxBases]
	}
	b.use(pb.id)
}

func (b *bases) use(id int64) {
	if b.used == nil {
		b.used = map[int64]bool{}
	}
	b.used[id] = true
}

// keptIDs returns the ids of the bases a prune must keep: those kept
// for writing and those used since the last prune, which it starts
// anew.
func (b *bases) keptIDs() []int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	ids := make([]int64, 0, len(b.recent)+len(b.used))
	for _, pb := range b.recent {
		ids = append(ids, pb.id)
	}
	for id := range b.used {
		ids = append(ids, id)
	}
	b.used = nil
	return ids
}

// sharedPrefix is the length in bytes of the longest common start of a
// and b, compared a block at a time.
func sharedPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+64 <= n && a[i:i+64] == b[i:i+64]; i += 64 {
	}
	for ; i < n && a[i] == b[i]; i++ {
	}
	return i
}

// tickRequest is how a tick's request is stored: the request as JSON, its
// system message cut to what follows the part of its base, and the base.
type tickRequest struct {
	json    string
	base    int64 // 0: none
	baseLen int
	// newBase, when not empty, is the system message, to be stored as a
	// base in the tick's transaction (base is then set there).
	newBase string
}

// storedRequest cuts req's system message against the kept bases.
func (s *Store) storedRequest(req []state.ChatMessage) (tickRequest, error) {
	var tr tickRequest
	if req == nil {
		req = []state.ChatMessage{}
	}
	if len(req) > 0 && req[0].Role == "system" && len(req[0].Content) >= minBase {
		sys := req[0].Content
		req = slices.Clone(req)
		if pb, n, ok := s.bases.pick(sys); ok {
			tr.base, tr.baseLen = pb.id, n
			req[0].Content = sys[n:]
		} else {
			tr.newBase, tr.baseLen = sys, len(sys)
			req[0].Content = ""
		}
	}
	b, err := json.Marshal(req)
	if err != nil {
		return tr, err
	}
	tr.json = string(b)
	return tr, nil
}

// storeBase stores tr's new base in tx, if it has one, and sets its id.
func (s *Store) storeBase(ctx context.Context, tx *sql.Tx, tr *tickRequest) error {
	if tr.newBase == "" {
		return nil
	}
	s.stats.stmts.Add(1)
	return tx.QueryRowContext(ctx, `INSERT INTO prompt_bases (text) VALUES (?) RETURNING id`, tr.newBase).Scan(&tr.base)
}

// baseText returns the text of base id.
func (s *Store) baseText(ctx context.Context, id int64) (string, error) {
	s.bases.mu.Lock()
	text, ok := s.bases.texts[id]
	if !ok {
		for _, pb := range s.bases.recent {
			if pb.id == id {
				text, ok = pb.text, true
			}
		}
	}
	s.bases.mu.Unlock()
	if ok {
		return text, nil
	}
	if err := s.row(ctx, `SELECT text FROM prompt_bases WHERE id = ?`, id).Scan(&text); err != nil {
		return "", fmt.Errorf("read prompt base %d: %w", id, err)
	}
	s.bases.mu.Lock()
	if s.bases.texts == nil || len(s.bases.texts) >= maxBaseTexts {
		s.bases.texts = map[int64]string{}
	}
	s.bases.texts[id] = text
	s.bases.mu.Unlock()
	return text, nil
}

// withBase gives t's system message back the part of base id it starts
// with.
func (s *Store) withBase(ctx context.Context, t *state.Tick, id int64, n int) error {
	text, err := s.baseText(ctx, id)
	if err != nil {
		return fmt.Errorf("tick %d: %w", t.ID, err)
	}
	if n > len(text) || len(t.Request) == 0 {
		return fmt.Errorf("tick %d: its request does not fit its prompt base %d", t.ID, id)
	}
	t.Request[0].Content = text[:n] + t.Request[0].Content
	return nil
}

// pruneBases deletes the bases no tick refers to, except those kept for
// writing or used since the last prune.
func (s *Store) pruneBases(ctx context.Context) error {
	kept, err := json.Marshal(s.bases.keptIDs())
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `DELETE FROM prompt_bases WHERE id NOT IN (SELECT base FROM ticks WHERE base IS NOT NULL)
	AND id NOT IN (SELECT value FROM json_each(?))`, string(kept))
	if err != nil {
		return fmt.Errorf("prune prompt bases: %w", err)
	}
	return nil
}
