package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/airi-go/airi/state"
)

// tickSummaryCols are the columns of a tick without its request and
// sections, for timeline pages.
const tickSummaryCols = `id, channel_id, wake, trigger, now, raw, reasoning,
	prompt_tokens, completion_tokens, cached_tokens, latency_ms,
	action, parse_error, model_error, notes, result, ok, effects`

func scanTickSummary(row pgx.Row) (state.Tick, error) {
	var (
		t                      state.Tick
		now                    *time.Time
		action, notes, effects *string
	)
	err := row.Scan(&t.ID, &t.ChannelID, &t.Wake, &t.Trigger, &now, &t.Raw, &t.Reasoning,
		&t.Usage.PromptTokens, &t.Usage.CompletionTokens, &t.Usage.CachedTokens, &t.LatencyMS,
		&action, &t.ParseError, &t.ModelError, &notes, &t.Result, &t.OK, &effects)
	if err != nil {
		return t, err
	}
	t.Now = decTS(now)
	t.Action = decRaw(action)
	t.Effects = decRaw(effects)
	if notes != nil {
		if err := json.Unmarshal([]byte(*notes), &t.Notes); err != nil {
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
	)
	if q.Messages() {
		where, args := timelineWhere(q, "time", q.Before.MessageBound())
		if q.Text != "" {
			args = append(args, likePattern(q.Text))
			// ILIKE folds more than ASCII; the contract promises ASCII.
			where = append(where, fmt.Sprintf(`content ILIKE $%d ESCAPE '\'`, len(args)))
		}
		args = append(args, q.Limit)
		rows, err := s.pool.Query(ctx, `SELECT `+messageCols+` FROM messages`+
			whereSQL(where)+fmt.Sprintf(` ORDER BY time DESC, id DESC LIMIT $%d`, len(args)), args...)
		msgs, err = collect(rows, err, scanMessage)
		if err != nil {
			return nil, fmt.Errorf("timeline messages: %w", err)
		}
	}
	if q.Ticks() {
		where, args := timelineWhere(q, "now", q.Before.TickBound())
		// A tick recorded without a time has no place on a timeline.
		where = append(where, `now IS NOT NULL`)
		if q.Outcome != "" {
			args = append(args, q.Outcome)
			where = append(where, fmt.Sprintf(`outcome = $%d`, len(args)))
		}
		args = append(args, q.Limit)
		rows, err := s.pool.Query(ctx, `SELECT `+tickSummaryCols+` FROM ticks`+
			whereSQL(where)+fmt.Sprintf(` ORDER BY now DESC, id DESC LIMIT $%d`, len(args)), args...)
		ticks, err = collect(rows, err, scanTickSummary)
		if err != nil {
			return nil, fmt.Errorf("timeline ticks: %w", err)
		}
	}
	return state.MergeTimeline(msgs, ticks, q.Limit), nil
}

// timelineWhere returns the channel and keyset conditions of a timeline
// query on a table whose time column is timeCol.
func timelineWhere(q state.TimelineQuery, timeCol string, bound int64) ([]string, []any) {
	var (
		where []string
		args  []any
	)
	if q.ChannelID != "" {
		args = append(args, q.ChannelID)
		where = append(where, fmt.Sprintf(`channel_id = $%d`, len(args)))
	}
	if !q.Before.IsZero() {
		args = append(args, q.Before.Time, bound)
		where = append(where, fmt.Sprintf(`(%s, id) < ($%d, $%d)`, timeCol, len(args)-1, len(args)))
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
	err = s.pool.QueryRow(ctx, `SELECT
	coalesce((SELECT max(id) FROM ticks WHERE channel_id = $1 AND id < $2), 0),
	coalesce((SELECT min(id) FROM ticks WHERE channel_id = $1 AND id > $2), 0)`, channelID, id).Scan(&prev, &next)
	if err != nil {
		return 0, 0, fmt.Errorf("neighbours of tick %d: %w", id, err)
	}
	return prev, next, nil
}

// ChannelActivity returns the latest activity of every known channel,
// ordered by channel id: one index seek per channel and table.
func (s *Store) ChannelActivity(ctx context.Context) ([]state.ChannelActivity, error) {
	rows, err := s.pool.Query(ctx, `SELECT c.id,
	(SELECT max(time) FROM messages WHERE channel_id = c.id),
	coalesce(t.id, 0), t.now, coalesce(t.outcome, '')
FROM channels c
LEFT JOIN LATERAL (SELECT id, now, outcome FROM ticks WHERE channel_id = c.id ORDER BY id DESC LIMIT 1) t ON true
ORDER BY c.id`)
	out, err := collect(rows, err, func(row pgx.Row) (state.ChannelActivity, error) {
		var (
			a               state.ChannelActivity
			lastMsg, lastTk *time.Time
		)
		err := row.Scan(&a.ChannelID, &lastMsg, &a.LastTickID, &lastTk, &a.LastOutcome)
		a.LastMessage, a.LastTick = decTS(lastMsg), decTS(lastTk)
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("channel activity: %w", err)
	}
	return out, nil
}
