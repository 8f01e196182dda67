package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/airi-go/airi/state"
)

// AddReaction stores a reaction to one of the bot's own messages, in one
// statement that checks the message is the bot's; a reaction to any other
// message, or one stored already, stores nothing.
func (s *Store) AddReaction(ctx context.Context, r state.Reaction) (bool, error) {
	if err := r.Validate(); err != nil {
		return false, fmt.Errorf("add reaction: %w", err)
	}
	tag, err := s.pool.Exec(ctx, `
INSERT INTO reactions (channel_id, message_id, sender_id, sender_name, from_bot, emoji, removed, time)
SELECT $1, $2, $3, $4, $5, $6, $7, $8
WHERE EXISTS (SELECT 1 FROM messages WHERE channel_id = $1 AND platform_id = $2 AND self)
ON CONFLICT DO NOTHING`,
		r.ChannelID, r.MessageID, r.SenderID, state.CleanText(r.SenderName), r.FromBot, r.Emoji, r.Removed, normTime(r.Time))
	if err != nil {
		return false, fmt.Errorf("add reaction in %q: %w", r.ChannelID, err)
	}
	return tag.RowsAffected() > 0, nil
}

// NewReactions returns a channel's reactions not yet shown, oldest first.
func (s *Store) NewReactions(ctx context.Context, channelID string, limit int) ([]state.Reaction, error) {
	var lim *int
	if limit > 0 {
		lim = &limit
	}
	rows, err := s.pool.Query(ctx, `SELECT `+reactionCols+`
FROM reactions WHERE channel_id = $1 AND NOT shown ORDER BY id LIMIT $2`, channelID, lim)
	out, err := collect(rows, err, scanReaction)
	if err != nil {
		return nil, fmt.Errorf("new reactions of %q: %w", channelID, err)
	}
	return out, nil
}

// ReactionEvents returns the stored reactions, shown or not, in id order.
func (s *Store) ReactionEvents(ctx context.Context, f state.TickFilter) ([]state.Reaction, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+reactionCols+` FROM reactions
WHERE ($1 = '' OR channel_id = $1) AND ($2::timestamptz IS NULL OR time >= $2) ORDER BY id`, f.ChannelID, tsArg(f.Since))
	out, err := collect(rows, err, scanReaction)
	if err != nil {
		return nil, fmt.Errorf("list reactions: %w", err)
	}
	return out, nil
}

// reactionCols are the columns scanReaction reads.
const reactionCols = `id, channel_id, message_id, sender_id, sender_name, from_bot, emoji, removed, time`

func scanReaction(row pgx.Row) (state.Reaction, error) {
	var (
		r state.Reaction
		t time.Time
	)
	err := row.Scan(&r.ID, &r.ChannelID, &r.MessageID, &r.SenderID, &r.SenderName, &r.FromBot, &r.Emoji, &r.Removed, &t)
	r.Time = t.UTC()
	return r, err
}

// MarkReactionsShown marks the given reactions shown.
func (s *Store) MarkReactionsShown(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	if _, err := s.pool.Exec(ctx, `UPDATE reactions SET shown = true WHERE id = ANY($1)`, ids); err != nil {
		return fmt.Errorf("mark %d reactions shown: %w", len(ids), err)
	}
	return nil
}

// ReactionCounts counts, per message and emoji, the senders whose latest
// reaction with it stands.
func (s *Store) ReactionCounts(ctx context.Context, channelID string, messageIDs []string) ([]state.ReactionCount, error) {
	if len(messageIDs) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT message_id, emoji, COUNT(*) AS n FROM (
	SELECT message_id, emoji, removed,
		ROW_NUMBER() OVER (PARTITION BY message_id, sender_id, emoji ORDER BY id DESC) AS latest
	FROM reactions WHERE channel_id = $1 AND message_id = ANY($2)
) r WHERE latest = 1 AND NOT removed
GROUP BY message_id, emoji ORDER BY message_id, n DESC, emoji`, channelID, messageIDs)
	out, err := collect(rows, err, func(row pgx.Row) (state.ReactionCount, error) {
		var (
			c state.ReactionCount
			n int64
		)
		err := row.Scan(&c.MessageID, &c.Emoji, &n)
		c.Count = int(n)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("count reactions in %q: %w", channelID, err)
	}
	return out, nil
}
