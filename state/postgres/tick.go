package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/airi-go/airi/state"
)

// AddTick stores a tick record and returns its id. On a replica the
// record also names the replica that ran the tick. Its commit does not
// wait for the disk (see lazyCommit).
func (s *Store) AddTick(ctx context.Context, t state.Tick) (int64, error) {
	query, args, err := s.tickInsert(t)
	if err != nil {
		return 0, err
	}
	var id int64
	if err := s.lazyCommit(ctx, func(row pgx.Row) error { return row.Scan(&id) }, query, args...); err != nil {
		return 0, fmt.Errorf("add tick for %q: %w", t.ChannelID, err)
	}
	return id, nil
}

// tickInsert returns the statement that stores t and returns its id.
func (s *Store) tickInsert(t state.Tick) (string, []any, error) {
	if t.ChannelID == "" {
		return "", nil, errors.New("add tick: empty channel id")
	}
	t = t.Clean()
	req := t.Request
	if req == nil {
		req = []state.ChatMessage{}
	}
	reqJSON, err := json.Marshal(req)
	if err != nil {
		return "", nil, fmt.Errorf("add tick for %q: %w", t.ChannelID, err)
	}
	var notes, sections any
	if t.Notes != nil {
		b, err := json.Marshal(t.Notes)
		if err != nil {
			return "", nil, fmt.Errorf("add tick for %q: %w", t.ChannelID, err)
		}
		notes = string(b)
	}
	if len(t.Sections) > 0 {
		b, err := json.Marshal(t.Sections)
		if err != nil {
			return "", nil, fmt.Errorf("add tick for %q: %w", t.ChannelID, err)
		}
		sections = string(b)
	}
	return `
INSERT INTO ticks (channel_id, wake, trigger, now, request, raw, reasoning,
	prompt_tokens, completion_tokens, cached_tokens, latency_ms,
	action, parse_error, model_error, notes, result, ok, effects, sections, replica)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20) RETURNING id`,
		[]any{t.ChannelID, t.Wake, t.Trigger, tsArg(t.Now), string(reqJSON), t.Raw, t.Reasoning,
			t.Usage.PromptTokens, t.Usage.CompletionTokens, t.Usage.CachedTokens, t.LatencyMS,
			rawArg(t.Action), t.ParseError, t.ModelError, notes, t.Result, t.OK, rawArg(t.Effects), sections, s.replicaID()}, nil
}

// Ticks returns tick records in id order: of one channel when f.ChannelID
// is set, with Now at or after f.Since when it is set, the one with f.ID,
// the newest f.Last.
func (s *Store) Ticks(ctx context.Context, f state.TickFilter) ([]state.Tick, error) {
	rows, err := s.pool.Query(ctx, `
SELECT * FROM (SELECT id, channel_id, wake, trigger, now, request, raw, reasoning,
	prompt_tokens, completion_tokens, cached_tokens, latency_ms,
	action, parse_error, model_error, notes, result, ok, effects, sections
FROM ticks WHERE ($1 = '' OR channel_id = $1) AND ($2::timestamptz IS NULL OR now >= $2) AND ($3 = 0 OR id = $3)
ORDER BY id DESC LIMIT $4) t ORDER BY id`,
		f.ChannelID, tsArg(f.Since), f.ID, limitArg(f.Last))
	out, err := collect(rows, err, scanTick)
	if err != nil {
		return nil, fmt.Errorf("list ticks: %w", err)
	}
	return out, nil
}

func scanTick(row pgx.Row) (state.Tick, error) {
	var (
		t                                state.Tick
		now                              *time.Time
		req                              string
		action, notes, effects, sections *string
	)
	err := row.Scan(&t.ID, &t.ChannelID, &t.Wake, &t.Trigger, &now, &req, &t.Raw, &t.Reasoning,
		&t.Usage.PromptTokens, &t.Usage.CompletionTokens, &t.Usage.CachedTokens, &t.LatencyMS,
		&action, &t.ParseError, &t.ModelError, &notes, &t.Result, &t.OK, &effects, &sections)
	if err != nil {
		return t, err
	}
	t.Now = decTS(now)
	t.Action = decRaw(action)
	t.Effects = decRaw(effects)
	if err := json.Unmarshal([]byte(req), &t.Request); err != nil {
		return t, fmt.Errorf("decode request of tick %d: %w", t.ID, err)
	}
	if len(t.Request) == 0 {
		t.Request = nil
	}
	if notes != nil {
		if err := json.Unmarshal([]byte(*notes), &t.Notes); err != nil {
			return t, fmt.Errorf("decode notes of tick %d: %w", t.ID, err)
		}
	}
	if sections != nil {
		if err := json.Unmarshal([]byte(*sections), &t.Sections); err != nil {
			return t, fmt.Errorf("decode sections of tick %d: %w", t.ID, err)
		}
	}
	return t, nil
}
