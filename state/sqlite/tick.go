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
	if t.ChannelID == "" {
		return 0, errors.New("add tick: empty channel id")
	}
	req := t.Request
	if req == nil {
		req = []state.ChatMessage{}
	}
	reqJSON, err := json.Marshal(req)
	if err != nil {
		return 0, fmt.Errorf("add tick for %q: %w", t.ChannelID, err)
	}
	var notes any
	if t.Notes != nil {
		b, err := json.Marshal(t.Notes)
		if err != nil {
			return 0, fmt.Errorf("add tick for %q: %w", t.ChannelID, err)
		}
		notes = string(b)
	}
	var sections any
	if len(t.Sections) > 0 {
		b, err := json.Marshal(t.Sections)
		if err != nil {
			return 0, fmt.Errorf("add tick for %q: %w", t.ChannelID, err)
		}
		sections = string(b)
	}
	id, err := s.insert(ctx, `
INSERT INTO ticks (channel_id, wake, trigger, now, request, raw, reasoning,
	prompt_tokens, completion_tokens, cached_tokens, latency_ms,
	action, parse_error, model_error, notes, result, ok, effects, sections)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		t.ChannelID, t.Wake, t.Trigger, encTime(t.Now), string(reqJSON), t.Raw, t.Reasoning,
		t.Usage.PromptTokens, t.Usage.CompletionTokens, t.Usage.CachedTokens, t.LatencyMS,
		encRaw(t.Action), t.ParseError, t.ModelError, notes, t.Result, boolInt(t.OK), encRaw(t.Effects), sections)
	if err != nil {
		return 0, fmt.Errorf("add tick for %q: %w", t.ChannelID, err)
	}
	return id, nil
}

// Ticks returns tick records in id order: of one channel when f.ChannelID
// is set, with Now at or after f.Since when it is set, the one with f.ID,
// the newest f.Last.
func (s *Store) Ticks(ctx context.Context, f state.TickFilter) ([]state.Tick, error) {
	out, err := collect(scanTick)(s.query(ctx, `
SELECT * FROM (SELECT id, channel_id, wake, trigger, now, request, raw, reasoning,
	prompt_tokens, completion_tokens, cached_tokens, latency_ms,
	action, parse_error, model_error, notes, result, ok, effects, sections
FROM ticks WHERE (?1 = '' OR channel_id = ?1) AND (?2 = 0 OR now >= ?2) AND (?3 = 0 OR id = ?3)
ORDER BY id DESC LIMIT +?4) ORDER BY id`,
		f.ChannelID, encTime(f.Since), f.ID, limitArg(f.Last)))
	if err != nil {
		return nil, fmt.Errorf("list ticks: %w", err)
	}
	return out, nil
}

func scanTick(rows scanner) (state.Tick, error) {
	var (
		t                      state.Tick
		now                    int64
		req                    string
		action, notes, effects sql.NullString
		sections               sql.NullString
	)
	err := rows.Scan(&t.ID, &t.ChannelID, &t.Wake, &t.Trigger, &now, &req, &t.Raw, &t.Reasoning,
		&t.Usage.PromptTokens, &t.Usage.CompletionTokens, &t.Usage.CachedTokens, &t.LatencyMS,
		&action, &t.ParseError, &t.ModelError, &notes, &t.Result, &t.OK, &effects, &sections)
	if err != nil {
		return t, err
	}
	t.Now = decTime(now)
	t.Action = decRaw(action)
	t.Effects = decRaw(effects)
	if err := json.Unmarshal([]byte(req), &t.Request); err != nil {
		return t, fmt.Errorf("decode request of tick %d: %w", t.ID, err)
	}
	if len(t.Request) == 0 {
		t.Request = nil
	}
	if notes.Valid {
		if err := json.Unmarshal([]byte(notes.String), &t.Notes); err != nil {
			return t, fmt.Errorf("decode notes of tick %d: %w", t.ID, err)
		}
	}
	if sections.Valid {
		if err := json.Unmarshal([]byte(sections.String), &t.Sections); err != nil {
			return t, fmt.Errorf("decode sections of tick %d: %w", t.ID, err)
		}
	}
	return t, nil
}
