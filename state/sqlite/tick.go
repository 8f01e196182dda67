package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/airi-go/airi/state"
)

// AddTick stores a tick record and returns its id.
func (s *Store) AddTick(ctx context.Context, t state.Tick) (int64, error) {
	args, tr, err := s.tickArgs(t)
	if err != nil {
		return 0, err
	}
	_, id, err := s.recordTick(ctx, nil, 0, 0, args, tr)
	if err != nil {
		return 0, fmt.Errorf("add tick for %q: %w", t.ChannelID, err)
	}
	return id, nil
}

const addTickSQL = `
INSERT INTO ticks (channel_id, wake, trigger, now, request, raw, reasoning,
	prompt_tokens, completion_tokens, cached_tokens, latency_ms,
	action, parse_error, model_error, notes, result, ok, effects, sections, base, base_len)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// tickBaseArg is the index of the base among the arguments of addTickSQL.
const tickBaseArg = 19

// tickArgs are the arguments of addTickSQL for t, and how its request is
// stored.
func (s *Store) tickArgs(t state.Tick) ([]any, *tickRequest, error) {
	if t.ChannelID == "" {
		return nil, nil, errors.New("add tick: empty channel id")
	}
	t = t.Clean()
	tr, err := s.storedRequest(t.Request)
	if err != nil {
		return nil, nil, fmt.Errorf("add tick for %q: %w", t.ChannelID, err)
	}
	var notes any
	if t.Notes != nil {
		b, err := json.Marshal(t.Notes)
		if err != nil {
			return nil, nil, fmt.Errorf("add tick for %q: %w", t.ChannelID, err)
		}
		notes = string(b)
	}
	var sections any
	if len(t.Sections) > 0 {
		b, err := json.Marshal(t.Sections)
		if err != nil {
			return nil, nil, fmt.Errorf("add tick for %q: %w", t.ChannelID, err)
		}
		sections = string(b)
	}
	var base any // NULL: no base
	if tr.base != 0 {
		base = tr.base
	}
	return []any{t.ChannelID, t.Wake, t.Trigger, encTime(t.Now), tr.json, t.Raw, t.Reasoning,
		t.Usage.PromptTokens, t.Usage.CompletionTokens, t.Usage.CachedTokens, t.LatencyMS,
		encRaw(t.Action), t.ParseError, t.ModelError, notes, t.Result, boolInt(t.OK), encRaw(t.Effects), sections,
		base, tr.baseLen}, &tr, nil
}

// tickBase stores the new base of a tick's request, if it has one, in tx,
// and puts its id among args.
func (s *Store) tickBase(ctx context.Context, tx *sql.Tx, tr *tickRequest, args []any) error {
	if tr.newBase == "" {
		return nil
	}
	if err := s.storeBase(ctx, tx, tr); err != nil {
		return fmt.Errorf("store prompt base: %w", err)
	}
	args[tickBaseArg] = tr.base
	return nil
}

// keepBase keeps in memory the base a committed tick stored.
func (s *Store) keepBase(tr *tickRequest) {
	if tr.newBase != "" && tr.base != 0 {
		s.bases.add(promptBase{id: tr.base, text: tr.newBase})
	}
}

// RecordTick stores what a tick did in one transaction: its action record
// when act is not nil, then the trim of the channel's action history (as
// TrimActions(keep, over) does), then the tick record. It returns the ids
// of the action record (0 without one) and of the tick. On an error
// nothing is stored. One commit instead of three (BenchmarkRuntimeTick).
func (s *Store) RecordTick(ctx context.Context, act *state.ActionRecord, keep, over int, t state.Tick) (actionID, tickID int64, err error) {
	if act != nil && act.ChannelID == "" {
		return 0, 0, errors.New("record tick: action record with an empty channel id")
	}
	args, tr, err := s.tickArgs(t)
	if err != nil {
		return 0, 0, err
	}
	actionID, tickID, err = s.recordTick(ctx, act, keep, over, args, tr)
	if err != nil {
		return 0, 0, fmt.Errorf("record tick for %q: %w", t.ChannelID, err)
	}
	return actionID, tickID, nil
}

// recordTick stores the tick of args and tr (see tickArgs), after act
// when it is not nil, in one transaction: RecordTick, and AddTick.
func (s *Store) recordTick(ctx context.Context, act *state.ActionRecord, keep, over int, args []any, tr *tickRequest) (actionID, tickID int64, err error) {
	left := 0
	err = s.batchApply(ctx, func(ctx context.Context, tx *sql.Tx) (err error) {
		actionID, tickID = 0, 0
		if act != nil {
			if actionID, _, err = s.txInsert(ctx, tx, appendActionSQL, actionArgs(*act)...); err != nil {
				return fmt.Errorf("append action: %w", err)
			}
			// The channel's records as the memo counts them, and this
			// one: the loop of a channel records one tick at a time.
			known := -1
			if n, ok := s.memo.actionCount(act.ChannelID); ok {
				known = n + 1
			}
			if left, err = s.trimTx(ctx, tx, act.ChannelID, keep, over, known); err != nil {
				return fmt.Errorf("trim actions: %w", err)
			}
		}
		if err := s.tickBase(ctx, tx, tr, args); err != nil {
			return err
		}
		tickID, _, err = s.txInsert(ctx, tx, addTickSQL, args...)
		return err
	}, func(m *memo) {
		if act != nil {
			m.setActions(act.ChannelID, left)
		}
		s.keepBase(tr)
	})
	return actionID, tickID, err
}

// Ticks returns tick records in id order: of one channel when f.ChannelID
// is set, with Now at or after f.Since when it is set, the one with f.ID,
// the newest f.Last.
func (s *Store) Ticks(ctx context.Context, f state.TickFilter) ([]state.Tick, error) {
	rows, err := collect(scanTick)(s.query(ctx, `
SELECT * FROM (SELECT id, channel_id, wake, trigger, now, request, raw, reasoning,
	prompt_tokens, completion_tokens, cached_tokens, latency_ms,
	action, parse_error, model_error, notes, result, ok, effects, sections, base, base_len
FROM ticks WHERE (?1 = '' OR channel_id = ?1) AND (?2 = 0 OR now >= ?2) AND (?3 = 0 OR id = ?3)
ORDER BY id DESC LIMIT +?4) ORDER BY id`,
		f.ChannelID, encTime(f.Since), f.ID, limitArg(f.Last)))
	if err != nil {
		return nil, fmt.Errorf("list ticks: %w", err)
	}
	out := make([]state.Tick, len(rows))
	for i, r := range rows {
		out[i] = r.tick
		if r.base.Valid {
			if err := s.withBase(ctx, &out[i], r.base.Int64, r.baseLen); err != nil {
				return nil, fmt.Errorf("list ticks: %w", err)
			}
		}
	}
	return out, nil
}

// tickRow is a tick as read, with the base of its request.
type tickRow struct {
	tick    state.Tick
	base    sql.NullInt64
	baseLen int
}

func scanTick(rows scanner) (tickRow, error) {
	var (
		r                      tickRow
		t                      = &r.tick
		now                    int64
		req                    string
		action, notes, effects sql.NullString
		sections               sql.NullString
	)
	err := rows.Scan(&t.ID, &t.ChannelID, &t.Wake, &t.Trigger, &now, &req, &t.Raw, &t.Reasoning,
		&t.Usage.PromptTokens, &t.Usage.CompletionTokens, &t.Usage.CachedTokens, &t.LatencyMS,
		&action, &t.ParseError, &t.ModelError, &notes, &t.Result, &t.OK, &effects, &sections, &r.base, &r.baseLen)
	if err != nil {
		return r, err
	}
	t.Now = decTime(now)
	t.Action = decRaw(action)
	t.Effects = decRaw(effects)
	if err := json.Unmarshal([]byte(req), &t.Request); err != nil {
		return r, fmt.Errorf("decode request of tick %d: %w", t.ID, err)
	}
	if len(t.Request) == 0 {
		t.Request = nil
	}
	if notes.Valid {
		if err := json.Unmarshal([]byte(notes.String), &t.Notes); err != nil {
			return r, fmt.Errorf("decode notes of tick %d: %w", t.ID, err)
		}
	}
	if sections.Valid {
		if err := json.Unmarshal([]byte(sections.String), &t.Sections); err != nil {
			return r, fmt.Errorf("decode sections of tick %d: %w", t.ID, err)
		}
	}
	return r, nil
}
