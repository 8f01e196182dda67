package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/airi-go/airi/state"
)

// tickSummaryCols are the columns of a tick without its request and
// sections, for timeline pages.
const tickSummaryCols = `id, channel_id, wake, trigger, now, raw, reasoning,
	prompt_tokens, completion_tokens, cached_tokens, latency_ms,
	action, parse_error, model_error, notes, result, ok, effects`

func scanTickSummary(rows scanner) (state.Tick, error) {
	var (
		t                      state.Tick
		now                    int64
		action, notes, effects sql.NullString
	)
	err := rows.Scan(&t.ID, &t.ChannelID, &t.Wake, &t.Trigger, &now, &t.Raw, &t.Reasoning,
		&t.Usage.PromptTokens, &t.Usage.CompletionTokens, &t.Usage.CachedTokens, &t.LatencyMS,
		&action, &t.ParseError, &t.ModelError, &notes, &t.Result, &t.OK, &effects)
	if err != nil {
		return t, err
	}
	t.Now = decTime(now)
	t.Action = decRaw(action)
	t.Effects = decRaw(effects)
	if notes.Valid {
		if err := json.Unmarshal([]byte(notes.String), &t.Notes); err != nil {
			return t, fmt.Errorf("decode notes of tick %d: %w", t.ID, err)
		}
	}
	return t, nil
}

// likePattern matches text anywhere, with LIKE's wildcards in it escaped.
func likePattern(text string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(text) + "%"
}

// Timeline returns one page of messages and ticks, newest first. Each kind
// is read with its own keyset query (an index range, newest first, at most
// q.Limit rows) and the two are merged.
func (s *Store) Timeline(ctx context.Context, q state.TimelineQuery) ([]state.TimelineItem, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	var (
		msgs  []state.Message
		ticks []state.Tick
		err   error
	)
	msgSQL, msgArgs, tickSQL, tickArgs := timelineSQL(q)
	if msgSQL != "" {
		if msgs, err = scanMessages(s.query(ctx, msgSQL, msgArgs...)); err != nil {
			return nil, fmt.Errorf("timeline messages: %w", err)
		}
	}
	if tickSQL != "" {
		if ticks, err = collect(scanTickSummary)(s.query(ctx, tickSQL, tickArgs...)); err != nil {
			return nil, fmt.Errorf("timeline ticks: %w", err)
		}
	}
	return state.MergeTimeline(msgs, ticks, q.Limit), nil
}

// timelineSQL returns the statements (empty when the query does not
// select that kind) and arguments of a timeline page.
func timelineSQL(q state.TimelineQuery) (msgSQL string, msgArgs []any, tickSQL string, tickArgs []any) {
	if q.Messages() {
		where, args := timelineWhere(q, "time", q.Before.MessageBound())
		if q.Text != "" {
			where = append(where, `content LIKE ? ESCAPE '\'`)
			args = append(args, likePattern(q.Text))
		}
		msgSQL = `SELECT ` + messageCols + ` FROM messages` + whereSQL(where) + ` ORDER BY time DESC, id DESC LIMIT ?`
		msgArgs = append(args, q.Limit)
	}
	if q.Ticks() {
		where, args := timelineWhere(q, "now", q.Before.TickBound())
		// A tick recorded without a time has no place on a timeline.
		where = append(where, `now <> 0`)
		if q.Outcome != "" {
			where = append(where, `outcome = ?`)
			args = append(args, q.Outcome)
		}
		tickSQL = `SELECT ` + tickSummaryCols + ` FROM ticks` + whereSQL(where) + ` ORDER BY now DESC, id DESC LIMIT ?`
		tickArgs = append(args, q.Limit)
	}
	return msgSQL, msgArgs, tickSQL, tickArgs
}

// timelineWhere returns the channel and keyset conditions of a timeline
// query on a table whose time column is timeCol. The statement text
// depends only on which conditions are present, so each shape is prepared
// once and planned with its index.
func timelineWhere(q state.TimelineQuery, timeCol string, bound int64) ([]string, []any) {
	var (
		where []string
		args  []any
	)
	if q.ChannelID != "" {
		where = append(where, `channel_id = ?`)
		args = append(args, q.ChannelID)
	}
	if !q.Before.IsZero() {
		where = append(where, `(`+timeCol+`, id) < (?, ?)`)
		args = append(args, encTime(q.Before.Time), bound)
	}
	return where, args
}

func whereSQL(where []string) string {
	if len(where) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(where, " AND ")
}

// TickNeighbours returns the ids of the ticks of channelID just before and
// just after id (0 where there is none).
func (s *Store) TickNeighbours(ctx context.Context, channelID string, id int64) (prev, next int64, err error) {
	err = s.row(ctx, `SELECT
	coalesce((SELECT max(id) FROM ticks WHERE channel_id = ?1 AND id < ?2), 0),
	coalesce((SELECT min(id) FROM ticks WHERE channel_id = ?1 AND id > ?2), 0)`, channelID, id).Scan(&prev, &next)
	if err != nil {
		return 0, 0, fmt.Errorf("neighbours of tick %d: %w", id, err)
	}
	return prev, next, nil
}

// ChannelActivity returns the latest activity of every known channel,
// ordered by channel id: one index seek per channel and table.
func (s *Store) ChannelActivity(ctx context.Context) ([]state.ChannelActivity, error) {
	out, err := collect(func(sc scanner) (state.ChannelActivity, error) {
		var (
			a               state.ChannelActivity
			lastMsg, lastTk int64
		)
		err := sc.Scan(&a.ChannelID, &lastMsg, &a.LastTickID, &lastTk, &a.LastOutcome)
		a.LastMessage, a.LastTick = decTime(lastMsg), decTime(lastTk)
		return a, err
	})(s.query(ctx, `SELECT c.id,
	coalesce((SELECT max(time) FROM messages WHERE channel_id = c.id), 0),
	coalesce(t.id, 0), coalesce(t.now, 0), coalesce(t.outcome, '')
FROM channels c
LEFT JOIN ticks t ON t.id = (SELECT max(id) FROM ticks WHERE channel_id = c.id)
ORDER BY c.id`))
	if err != nil {
		return nil, fmt.Errorf("channel activity: %w", err)
	}
	return out, nil
}
