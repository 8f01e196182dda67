package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/airi-go/airi/state"
)

const messageCols = `id, channel_id, platform_id, sender_id, sender_name, self, content, reply_to, mentioned, time, read, reply_to_self, from_bot, decision, edited, previous, deleted, changed, media`

func scanMessage(sc pgx.Row) (state.Message, error) {
	var (
		m       state.Message
		t       time.Time
		changed *time.Time
		media   string
	)
	err := sc.Scan(&m.ID, &m.ChannelID, &m.PlatformID, &m.SenderID, &m.SenderName, &m.Self,
		&m.Content, &m.ReplyTo, &m.Mentioned, &t, &m.Read, &m.ReplyToSelf, &m.FromBot, &m.Decision,
		&m.Edited, &m.Previous, &m.Deleted, &changed, &media)
	m.Time = t.UTC()
	m.Changed = decTS(changed)
	if err == nil {
		m.Media, err = decodeMedia(media)
	}
	return m, err
}

// Ingest stores an incoming message durably; see state.Store. A new
// message from someone else also notifies the replicas (LISTEN/NOTIFY), so
// that the one driving its channel wakes at once.
func (s *Store) Ingest(ctx context.Context, msg state.Message) (state.Message, bool, error) {
	if err := msg.Validate(); err != nil {
		return state.Message{}, false, fmt.Errorf("ingest message: %w", err)
	}
	msg = ingestable(msg)

	var isNew bool
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) (err error) {
		msg, isNew, err = s.ingestIn(ctx, tx, msg)
		return err
	})
	if err != nil {
		return state.Message{}, false, fmt.Errorf("ingest message %q in %q: %w", msg.PlatformID, msg.ChannelID, err)
	}
	return msg, isNew, nil
}

// ingestable is msg as Ingest stores it: no id yet, the bot's own
// messages never unread.
func ingestable(msg state.Message) state.Message {
	msg = msg.Clean()
	msg.ID = 0
	msg.Read = msg.Self
	msg.Time = normTime(msg.Time)
	return msg
}

// ingestIn stores msg, normalized by Ingest, in tx and notifies the
// replicas of a new message from someone else.
func (s *Store) ingestIn(ctx context.Context, tx pgx.Tx, msg state.Message) (state.Message, bool, error) {
	err := tx.QueryRow(ctx, `INSERT INTO messages (channel_id, platform_id, sender_id, sender_name, self, content, reply_to, mentioned, time, read, reply_to_self, from_bot, decision, media)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
ON CONFLICT (channel_id, platform_id) WHERE platform_id <> '' DO NOTHING
RETURNING id`,
		msg.ChannelID, msg.PlatformID, msg.SenderID, msg.SenderName, msg.Self,
		msg.Content, msg.ReplyTo, msg.Mentioned, msg.Time, msg.Read, msg.ReplyToSelf, msg.FromBot, msg.Decision,
		mediaJSON(msg.Media),
	).Scan(&msg.ID)
	if err == nil {
		if !msg.Self {
			if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, s.notifyChannel(), msg.ChannelID); err != nil {
				return state.Message{}, false, err
			}
		}
		return msg, true, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return state.Message{}, false, err
	}
	// Nothing inserted: the (channel, platform id) pair exists. Read
	// committed: this statement sees the row the conflict waited for.
	msg, err = scanMessage(tx.QueryRow(ctx, `SELECT `+messageCols+` FROM messages
WHERE channel_id = $1 AND platform_id = $2 AND platform_id <> ''`, msg.ChannelID, msg.PlatformID))
	return msg, false, err
}

// Unread returns up to limit unread messages of a channel, oldest first
// (limit <= 0 means all).
func (s *Store) Unread(ctx context.Context, channelID string, limit int) ([]state.Message, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+messageCols+` FROM messages
WHERE channel_id = $1 AND NOT read ORDER BY id LIMIT $2`, channelID, limitArg(limit))
	out, err := collect(rows, err, scanMessage)
	if err != nil {
		return nil, fmt.Errorf("unread messages of %q: %w", channelID, err)
	}
	return out, nil
}

// CountUnreadAfter returns the number of unread messages of a channel
// with an id greater than after.
func (s *Store) CountUnreadAfter(ctx context.Context, channelID string, after int64) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM messages
WHERE channel_id = $1 AND NOT read AND id > $2`, channelID, after).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count unread of %q after %d: %w", channelID, after, err)
	}
	return n, nil
}

// UnreadCounts returns the number of unread messages per channel id.
func (s *Store) UnreadCounts(ctx context.Context) (map[string]int, error) {
	rows, err := s.pool.Query(ctx, `SELECT channel_id, count(*) FROM messages WHERE NOT read GROUP BY channel_id`)
	if err != nil {
		return nil, fmt.Errorf("count unread: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var (
			id string
			n  int
		)
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("count unread: %w", err)
		}
		out[id] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count unread: %w", err)
	}
	return out, nil
}

// MarkRead marks exactly the given message ids read; unknown ids and ids
// already read are ignored. Its commit does not wait for the disk (see
// lazyCommit).
func (s *Store) MarkRead(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	if err := s.lazyCommit(ctx, nil, `UPDATE messages SET read = true WHERE NOT read AND id = ANY($1)`, ids); err != nil {
		return fmt.Errorf("mark %d messages read: %w", len(ids), err)
	}
	return nil
}

// SetDecision records the attention decision on the given messages. Its
// commit does not wait for the disk (see lazyCommit): a decision lost in
// a crash of the server costs no message.
func (s *Store) SetDecision(ctx context.Context, ids []int64, decision string) error {
	if len(ids) == 0 {
		return nil
	}
	if err := s.lazyCommit(ctx, nil, `UPDATE messages SET decision = $1 WHERE id = ANY($2)`, decision, ids); err != nil {
		return fmt.Errorf("record decision %q on %d messages: %w", decision, len(ids), err)
	}
	return nil
}

// History returns the newest limit read or own messages of a channel,
// oldest first (limit <= 0 means all), and how many the channel has (kept
// by triggers in history_counts). One statement, so the window and the
// count are of the same snapshot.
func (s *Store) History(ctx context.Context, channelID string, limit int) ([]state.Message, int, error) {
	rows, err := s.pool.Query(ctx, `SELECT t.total, m.id, m.channel_id, m.platform_id, m.sender_id, m.sender_name,
	m.self, m.content, m.reply_to, m.mentioned, m.time, m.read, m.reply_to_self, m.from_bot, m.decision,
	m.edited, m.previous, m.changed, m.media
FROM (SELECT coalesce((SELECT n FROM history_counts WHERE channel_id = $1), 0) AS total) t
LEFT JOIN LATERAL (SELECT `+messageCols+` FROM messages
	WHERE channel_id = $1 AND read AND NOT deleted ORDER BY id DESC LIMIT $2) m ON true`, channelID, limitArg(limit))
	if err != nil {
		return nil, 0, fmt.Errorf("history of %q: %w", channelID, err)
	}
	defer rows.Close()
	var (
		msgs  []state.Message
		total int
	)
	for rows.Next() {
		var (
			id                                    *int64
			ch, pid, sid, sname, content, replyTo *string
			decision, previous, media             *string
			self, mentioned, read, rts, bot       *bool
			edited                                *bool
			changed                               *time.Time
			t                                     *time.Time
		)
		if err := rows.Scan(&total, &id, &ch, &pid, &sid, &sname, &self, &content, &replyTo, &mentioned, &t, &read, &rts, &bot, &decision, &edited, &previous, &changed, &media); err != nil {
			return nil, 0, fmt.Errorf("history of %q: %w", channelID, err)
		}
		if id == nil {
			continue // a channel without history: the count's row alone
		}
		attached, err := decodeMedia(*media)
		if err != nil {
			return nil, 0, fmt.Errorf("history of %q: message %d: %w", channelID, *id, err)
		}
		msgs = append(msgs, state.Message{ID: *id, ChannelID: *ch, PlatformID: *pid, SenderID: *sid, SenderName: *sname,
			Self: *self, Content: *content, ReplyTo: *replyTo, Mentioned: *mentioned, Time: decTS(t), Read: *read,
			ReplyToSelf: *rts, FromBot: *bot, Decision: *decision, Edited: *edited, Previous: *previous, Changed: decTS(changed),
			Media: attached})
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("history of %q: %w", channelID, err)
	}
	for i, j := 0, len(msgs)-1; i < j; i, j = i+1, j-1 {
		msgs[i], msgs[j] = msgs[j], msgs[i]
	}
	return msgs, total, nil
}

// RecentOwn returns the bot's own messages among the newest scan messages
// of a channel's history (those History returns for that limit), newest
// first, at most limit of them (scan or limit <= 0 means no bound). Only
// ID, ChannelID, Self, Read, Content and Time are set. The window is read
// from the index newest first, so a busy channel's older history is not.
func (s *Store) RecentOwn(ctx context.Context, channelID string, scan, limit int) ([]state.Message, error) {
	rows, err := s.pool.Query(ctx, `SELECT m.id, m.content, m.time
FROM (SELECT id FROM messages WHERE channel_id = $1 AND read AND NOT deleted ORDER BY id DESC LIMIT $2) w
JOIN messages m ON m.id = w.id
WHERE m.self ORDER BY m.id DESC LIMIT $3`, channelID, limitArg(scan), limitArg(limit))
	out, err := collect(rows, err, func(r pgx.Row) (state.Message, error) {
		m := state.Message{ChannelID: channelID, Self: true, Read: true}
		var t *time.Time
		err := r.Scan(&m.ID, &m.Content, &t)
		m.Time = decTS(t)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("recent own messages of %q: %w", channelID, err)
	}
	return out, nil
}

// LastMessageID returns the highest message id stored for a channel (0 if none).
func (s *Store) LastMessageID(ctx context.Context, channelID string) (int64, error) {
	var id int64
	// Two index seeks (unread and read) instead of a scan of the channel.
	err := s.pool.QueryRow(ctx, `SELECT greatest(
	coalesce((SELECT max(id) FROM messages WHERE channel_id = $1 AND NOT read), 0),
	coalesce((SELECT max(id) FROM messages WHERE channel_id = $1 AND read), 0))`, channelID).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("last message id of %q: %w", channelID, err)
	}
	return id, nil
}

// Events returns the incoming (not own) messages in id order: of one
// channel when f.ChannelID is set, with a Time at or after f.Since when it
// is set.
func (s *Store) Events(ctx context.Context, f state.TickFilter) ([]state.Message, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+messageCols+` FROM messages
WHERE NOT self AND ($1 = '' OR channel_id = $1) AND ($2::timestamptz IS NULL OR time >= $2) ORDER BY id`,
		f.ChannelID, tsArg(f.Since))
	out, err := collect(rows, err, scanMessage)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	return out, nil
}

// ReminderSends returns the messages the reminder loop sent, in id order.
func (s *Store) ReminderSends(ctx context.Context, f state.TickFilter) ([]state.Message, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+messageCols+` FROM messages
WHERE self AND sender_id = $3 AND ($1 = '' OR channel_id = $1) AND ($2::timestamptz IS NULL OR time >= $2) ORDER BY id`,
		f.ChannelID, tsArg(f.Since), state.ReminderSenderID)
	out, err := collect(rows, err, scanMessage)
	if err != nil {
		return nil, fmt.Errorf("list reminder sends: %w", err)
	}
	return out, nil
}
