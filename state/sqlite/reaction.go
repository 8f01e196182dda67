package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/airi-go/airi/state"
)

// AddReaction stores a reaction to one of the bot's own messages, in one
// statement that checks the message is the bot's; a reaction to any other
// message, or one stored already, stores nothing.
func (s *Store) AddReaction(ctx context.Context, r state.Reaction) (bool, error) {
	if err := r.Validate(); err != nil {
		return false, fmt.Errorf("add reaction: %w", err)
	}
	res, err := s.exec(ctx, `
INSERT OR IGNORE INTO reactions (channel_id, message_id, sender_id, sender_name, from_bot, emoji, removed, time)
SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8
WHERE EXISTS (SELECT 1 FROM messages WHERE channel_id = ?1 AND platform_id = ?2 AND self = 1)`,
		r.ChannelID, r.MessageID, r.SenderID, state.CleanText(r.SenderName), r.FromBot, r.Emoji, r.Removed, encTime(r.Time))
	if err != nil {
		return false, fmt.Errorf("add reaction in %q: %w", r.ChannelID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("add reaction in %q: %w", r.ChannelID, err)
	}
	return n > 0, nil
}

// reactionCols are the columns scanReactions reads.
const reactionCols = `id, channel_id, message_id, sender_id, sender_name, from_bot, emoji, removed, time`

// scanReactions reads the rows of a query of reactionCols.
func scanReactions(rows *sql.Rows, err error) ([]state.Reaction, error) {
	return collect(func(sc scanner) (state.Reaction, error) {
		var (
			r state.Reaction
			t int64
		)
		err := sc.Scan(&r.ID, &r.ChannelID, &r.MessageID, &r.SenderID, &r.SenderName, &r.FromBot, &r.Emoji, &r.Removed, &t)
		r.Time = decTime(t)
		return r, err
	})(rows, err)
}

// NewReactions returns a channel's reactions not yet shown, oldest first.
func (s *Store) NewReactions(ctx context.Context, channelID string, limit int) ([]state.Reaction, error) {
	if limit <= 0 {
		limit = -1
	}
	out, err := scanReactions(s.query(ctx, `SELECT `+reactionCols+`
FROM reactions WHERE channel_id = ? AND shown = 0 ORDER BY id LIMIT ?`, channelID, limit))
	if err != nil {
		return nil, fmt.Errorf("new reactions of %q: %w", channelID, err)
	}
	return out, nil
}

// ReactionEvents returns the stored reactions, shown or not, in id order.
func (s *Store) ReactionEvents(ctx context.Context, f state.TickFilter) ([]state.Reaction, error) {
	out, err := scanReactions(s.query(ctx, `SELECT `+reactionCols+` FROM reactions
WHERE (?1 = '' OR channel_id = ?1) AND (?2 = 0 OR time >= ?2) ORDER BY id`, f.ChannelID, encTime(f.Since)))
	if err != nil {
		return nil, fmt.Errorf("list reactions: %w", err)
	}
	return out, nil
}

// MarkReactionsShown marks the given reactions shown.
func (s *Store) MarkReactionsShown(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	arg, err := json.Marshal(ids)
	if err != nil {
		return fmt.Errorf("mark %d reactions shown: %w", len(ids), err)
	}
	if _, err := s.exec(ctx, `UPDATE reactions SET shown = 1 WHERE id IN (SELECT value FROM json_each(?))`, string(arg)); err != nil {
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
	arg, err := json.Marshal(messageIDs)
	if err != nil {
		return nil, fmt.Errorf("count reactions in %q: %w", channelID, err)
	}
	out, err := collect(func(sc scanner) (state.ReactionCount, error) {
		var c state.ReactionCount
		err := sc.Scan(&c.MessageID, &c.Emoji, &c.Count)
		return c, err
	})(s.query(ctx, `SELECT message_id, emoji, COUNT(*) AS n FROM (
	SELECT message_id, emoji, removed,
		ROW_NUMBER() OVER (PARTITION BY message_id, sender_id, emoji ORDER BY id DESC) AS latest
	FROM reactions WHERE channel_id = ? AND message_id IN (SELECT value FROM json_each(?))
) WHERE latest = 1 AND removed = 0
GROUP BY message_id, emoji ORDER BY message_id, n DESC, emoji`, channelID, string(arg)))
	if err != nil {
		return nil, fmt.Errorf("count reactions in %q: %w", channelID, err)
	}
	return out, nil
}
