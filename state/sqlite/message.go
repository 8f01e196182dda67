package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/airi-go/airi/state"
)

const messageCols = `id, channel_id, platform_id, sender_id, sender_name, self, content, reply_to, mentioned, time, read, reply_to_self, from_bot, decision, edited, previous, deleted, changed, media`

func scanMessage(sc scanner) (state.Message, error) { return scanMessageAnd(sc) }

// scanMessageAnd scans a row of messageCols followed by the columns
// scanned into extra.
func scanMessageAnd(sc scanner, extra ...any) (state.Message, error) {
	var (
		m          state.Message
		t, changed int64
		media      string
	)
	dest := append(make([]any, 0, 19+len(extra)), &m.ID, &m.ChannelID, &m.PlatformID, &m.SenderID, &m.SenderName, &m.Self,
		&m.Content, &m.ReplyTo, &m.Mentioned, &t, &m.Read, &m.ReplyToSelf, &m.FromBot, &m.Decision,
		&m.Edited, &m.Previous, &m.Deleted, &changed, &media)
	err := sc.Scan(append(dest, extra...)...)
	if err == nil && media != "" {
		if err = json.Unmarshal([]byte(media), &m.Media); err != nil {
			err = fmt.Errorf("decode attachments of message %d: %w", m.ID, err)
		}
	}
	m.Time = decTime(t)
	if changed != 0 {
		m.Changed = decTime(changed)
	}
	return m, err
}

// scanMessages collects the rows of a message query.
func scanMessages(rows *sql.Rows, err error) ([]state.Message, error) {
	return collect(scanMessage)(rows, err)
}

const (
	ingestInsertSQL = `INSERT INTO messages (channel_id, platform_id, sender_id, sender_name, self, content, reply_to, mentioned, time, read, reply_to_self, from_bot, decision, media)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT DO NOTHING`
	ingestExistingSQL = `SELECT ` + messageCols + ` FROM messages
WHERE channel_id = ? AND platform_id = ? AND platform_id <> ''`
	// historySQL returns the newest history messages, each with the size
	// of the whole history (kept by triggers in history_counts), so one
	// statement reads both at one moment. A channel without history has
	// no rows, and its size is 0.
	historySQL = `SELECT ` + messageCols + `, coalesce((SELECT n FROM history_counts WHERE channel_id = ?1), 0)
FROM messages WHERE channel_id = ?1 AND read = 1 AND deleted = 0 ORDER BY id DESC LIMIT +?2`
)

// Ingest stores an incoming message durably; see state.Store. The insert
// and the unread flag are one statement, so a message is either absent or
// stored and unread (or read, for the bot's own). On a duplicate the stored
// row is returned with isNew=false. The channel need not have been
// recorded with UpsertChannel first.
func (s *Store) Ingest(ctx context.Context, msg state.Message) (state.Message, bool, error) {
	if err := msg.Validate(); err != nil {
		return state.Message{}, false, fmt.Errorf("ingest message: %w", err)
	}
	msg = ingestReady(msg)
	stored, isNew, err := s.ingestAfter(ctx, msg, nil)
	if err != nil {
		return state.Message{}, false, fmt.Errorf("ingest message %q in %q: %w", msg.PlatformID, msg.ChannelID, err)
	}
	return stored, isNew, nil
}

// ingestReady is msg as Ingest stores it.
func ingestReady(msg state.Message) state.Message {
	msg = msg.Clean()
	msg.ID = 0
	msg.Read = msg.Self // the bot's own messages are never unread
	msg.Time = normTime(msg.Time)
	return msg
}

// ingestAfter stores msg, made ready by ingestReady, in a write
// transaction after before (when not nil) ran in it, and applies it to
// the memo once committed. before reports whether the channel has no
// messages yet, which makes msg its first (see memo.stored).
func (s *Store) ingestAfter(ctx context.Context, msg state.Message, before func(ctx context.Context, tx *sql.Tx) (empty bool, err error)) (stored state.Message, isNew bool, err error) {
	first := false
	err = s.batchApply(ctx, func(ctx context.Context, tx *sql.Tx) error {
		first = false
		if before != nil {
			var err error
			if first, err = before(ctx, tx); err != nil {
				return err
			}
		}
		var err error
		stored, isNew, err = s.ingestTx(ctx, tx, msg)
		return err
	}, func(m *memo) {
		if isNew {
			m.stored(stored, first)
		}
	})
	return stored, isNew, err
}

// ingestTx stores msg, made ready by ingestReady, in tx.
func (s *Store) ingestTx(ctx context.Context, tx *sql.Tx, msg state.Message) (state.Message, bool, error) {
	id, inserted, err := s.txInsert(ctx, tx, ingestInsertSQL,
		msg.ChannelID, msg.PlatformID, msg.SenderID, msg.SenderName, boolInt(msg.Self),
		msg.Content, msg.ReplyTo, boolInt(msg.Mentioned), encTime(msg.Time), boolInt(msg.Read),
		boolInt(msg.ReplyToSelf), boolInt(msg.FromBot), msg.Decision, mediaJSON(msg.Media))
	if err != nil {
		return msg, false, err
	}
	if inserted {
		msg.ID = id
		return msg, true, nil
	}
	// Nothing inserted: the (channel, platform id) pair exists.
	stored, err := scanMessage(s.txRow(ctx, tx, ingestExistingSQL, msg.ChannelID, msg.PlatformID))
	if err != nil {
		return msg, false, err
	}
	return stored, false, nil
}

// limitArg maps "limit <= 0 means all" onto SQLite's LIMIT -1.
//
// Every bound LIMIT is written "LIMIT +?": SQLite plans a plain "LIMIT ?"
// for the value bound at the time and prepares the statement again
// whenever a later call binds another value, which costs more than the
// query itself. The unary plus keeps the plan independent of the value.
func limitArg(limit int) int {
	if limit <= 0 {
		return -1
	}
	return limit
}

// Unread returns up to limit unread messages of a channel, oldest first
// (limit <= 0 means all).
func (s *Store) Unread(ctx context.Context, channelID string, limit int) ([]state.Message, error) {
	var out []state.Message
	ok, err := s.inView(ctx, channelID, 0, func(v *view) bool {
		out = head(v.unread, limit)
		return true
	})
	if ok || err != nil {
		return out, wrapErr(err, "unread messages of %q", channelID)
	}
	out, err = scanMessages(s.queryShort(ctx, `SELECT `+messageCols+` FROM messages
WHERE channel_id = ? AND read = 0 ORDER BY id LIMIT +?`, channelID, limitArg(limit)))
	if err != nil {
		return nil, fmt.Errorf("unread messages of %q: %w", channelID, err)
	}
	return out, nil
}

// CountUnreadAfter returns the number of unread messages of a channel
// with an id greater than after; it reads the index only.
func (s *Store) CountUnreadAfter(ctx context.Context, channelID string, after int64) (int, error) {
	if after <= 0 {
		s.fresh(ctx)
		if n, ok := s.memo.unreadCount(channelID); ok {
			return n, nil
		}
	}
	var n int
	ok, err := s.inView(ctx, channelID, 0, func(v *view) bool {
		for _, m := range v.unread {
			if m.ID > after {
				n++
			}
		}
		return true
	})
	if ok || err != nil {
		return n, wrapErr(err, "count unread of %q after %d", channelID, after)
	}
	err = s.row(ctx, `SELECT count(*) FROM messages
WHERE channel_id = ? AND read = 0 AND id > ?`, channelID, after).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count unread of %q after %d: %w", channelID, after, err)
	}
	return n, nil
}

// UnreadCounts returns the number of unread messages per channel id.
func (s *Store) UnreadCounts(ctx context.Context) (map[string]int, error) {
	s.fresh(ctx)
	if out, ok := s.memo.unreadCounts(); ok {
		return out, nil
	}
	rows, err := s.queryShort(ctx, unreadCountsSQL)
	if err != nil {
		return nil, fmt.Errorf("count unread: %w", err)
	}
	out, err := scanCounts(rows)
	if err != nil {
		return nil, fmt.Errorf("count unread: %w", err)
	}
	return out, nil
}

// unreadCountsSQL counts the unread messages of each channel that has
// some. It steps from channel to channel through messages_channel, one seek
// each, and counts each channel's unread messages there: the time it
// takes grows with the channels and their unread messages, not with the
// history.
const unreadCountsSQL = `WITH RECURSIVE chans(id) AS (
	SELECT min(channel_id) FROM messages
	UNION ALL
	SELECT (SELECT min(channel_id) FROM messages WHERE channel_id > chans.id) FROM chans WHERE chans.id IS NOT NULL
)
SELECT id, n FROM (SELECT id, (SELECT count(*) FROM messages WHERE channel_id = chans.id AND read = 0) AS n FROM chans WHERE id IS NOT NULL)
WHERE n > 0`

// scanCounts collects the (channel id, count) rows of unreadCountsSQL.
func scanCounts(rows *sql.Rows) (map[string]int, error) {
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var (
			id string
			n  int
		)
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out[id] = n
	}
	return out, rows.Err()
}

// MarkRead marks exactly the given message ids read; unknown ids and ids
// already read are ignored.
func (s *Store) MarkRead(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	if err := s.updateIDs(ctx, ids, markReadSQL, markReadManySQL, nil, (*memo).markedRead); err != nil {
		return fmt.Errorf("mark %d messages read: %w", len(ids), err)
	}
	return nil
}

// markReadSQL marks messages read and returns those it changed, so that
// the memo learns which channels' unread messages they were; in two forms
// (see updateIDs).
const (
	markReadSQL     = `UPDATE messages SET read = 1 WHERE read = 0 AND id = ? RETURNING id, channel_id`
	markReadManySQL = `UPDATE messages SET read = 1 WHERE read = 0 AND id IN (SELECT value FROM json_each(?)) RETURNING id, channel_id`
)

// updateIDs runs an UPDATE of messages by id that returns the id and
// channel of each row it changed, in one of two forms: one, for a single
// id (the common case), or many, which takes every id in one JSON array
// parameter (any number stays under SQLite's variable limit). The ids
// parameter follows lead. Once committed, apply gets the changed ids by
// channel.
func (s *Store) updateIDs(ctx context.Context, ids []int64, one, many string, lead []any, apply func(m *memo, byChannel map[string][]int64)) error {
	query, arg := one, any(nil)
	if len(ids) == 1 {
		arg = ids[0]
	} else {
		arr, err := json.Marshal(ids)
		if err != nil {
			return err
		}
		query, arg = many, string(arr)
	}
	args := append(slices.Clip(lead), arg)
	var changed map[string][]int64
	return s.writeStmtApply(ctx, query, func(ctx context.Context, st *sql.Stmt) (err error) {
		changed, err = idsByChannel(st.QueryContext(ctx, args...))
		return err
	}, func(m *memo) { apply(m, changed) })
}

// idsByChannel collects the (id, channel id) rows of an UPDATE ...
// RETURNING by channel.
func idsByChannel(rows *sql.Rows, err error) (map[string][]int64, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]int64{}
	for rows.Next() {
		var (
			id int64
			ch string
		)
		if err := rows.Scan(&id, &ch); err != nil {
			return nil, err
		}
		out[ch] = append(out[ch], id)
	}
	return out, rows.Err()
}

// SetDecision records the attention decision on the given messages.
func (s *Store) SetDecision(ctx context.Context, ids []int64, decision string) error {
	if len(ids) == 0 {
		return nil
	}
	err := s.updateIDs(ctx, ids, setDecisionSQL, setDecisionManySQL, []any{decision}, func(m *memo, byChannel map[string][]int64) {
		m.decided(byChannel, decision)
	})
	if err != nil {
		return fmt.Errorf("record decision %q on %d messages: %w", decision, len(ids), err)
	}
	return nil
}

// setDecisionSQL records a decision on messages, in two forms (see
// updateIDs).
const (
	setDecisionSQL     = `UPDATE messages SET decision = ? WHERE id = ? RETURNING id, channel_id`
	setDecisionManySQL = `UPDATE messages SET decision = ? WHERE id IN (SELECT value FROM json_each(?)) RETURNING id, channel_id`
)

// History returns the newest limit read or own messages of a channel,
// oldest first (limit <= 0 means all), and how many the channel has.
func (s *Store) History(ctx context.Context, channelID string, limit int) ([]state.Message, int, error) {
	var (
		msgs  []state.Message
		total int
	)
	ok, err := s.inView(ctx, channelID, limit, func(v *view) bool {
		if !v.holdsHistory(limit) {
			return false
		}
		msgs, total = tail(v.hist, limit), v.total
		return true
	})
	if ok || err != nil {
		return msgs, total, wrapErr(err, "history of %q", channelID)
	}
	msgs, err = collect(func(sc scanner) (state.Message, error) {
		return scanMessageAnd(sc, &total)
	})(s.queryShort(ctx, historySQL, channelID, limitArg(limit)))
	if err != nil {
		return nil, 0, fmt.Errorf("history of %q: %w", channelID, err)
	}
	for i, j := 0, len(msgs)-1; i < j; i, j = i+1, j-1 {
		msgs[i], msgs[j] = msgs[j], msgs[i]
	}
	return msgs, total, nil
}

// recentOwnSQL walks a channel's history from the newest message down
// the index, reading the text of the bot's own messages only; RecentOwn
// stops reading once it has enough of them.
const recentOwnSQL = `SELECT id, self, CASE WHEN self = 1 THEN content ELSE '' END, time FROM messages
WHERE channel_id = ?1 AND read = 1 AND deleted = 0 ORDER BY id DESC LIMIT +?2`

// RecentOwn returns the bot's own messages among the newest scan messages
// of a channel's history (those History returns for that limit), newest
// first, at most limit of them (scan or limit <= 0 means no bound). Only
// ID, ChannelID, Self, Read, Content and Time are set.
func (s *Store) RecentOwn(ctx context.Context, channelID string, scan, limit int) (out []state.Message, err error) {
	defer func() {
		if err != nil {
			out, err = nil, fmt.Errorf("recent own messages of %q: %w", channelID, err)
		}
	}()
	ok, err := s.inView(ctx, channelID, 0, func(v *view) bool {
		if !v.holdsHistory(scan) {
			return false
		}
		out = nil
		for i := len(v.hist) - 1; i >= 0 && (scan <= 0 || i >= len(v.hist)-scan) && (limit <= 0 || len(out) < limit); i-- {
			if m := v.hist[i]; m.Self {
				out = append(out, state.Message{ID: m.ID, ChannelID: channelID, Self: true, Read: true, Content: m.Content, Time: m.Time})
			}
		}
		return true
	})
	if ok || err != nil {
		return out, err
	}
	rows, err := s.queryShort(ctx, recentOwnSQL, channelID, limitArg(scan))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for (limit <= 0 || len(out) < limit) && rows.Next() {
		var (
			m    = state.Message{ChannelID: channelID, Self: true, Read: true}
			self bool
			t    int64
		)
		if err := rows.Scan(&m.ID, &self, &m.Content, &t); err != nil {
			return nil, err
		}
		if self {
			m.Time = decTime(t)
			out = append(out, m)
		}
	}
	return out, rows.Err()
}

// LastMessageID returns the highest message id stored for a channel (0 if none).
func (s *Store) LastMessageID(ctx context.Context, channelID string) (int64, error) {
	var id int64
	ok, err := s.inView(ctx, channelID, 0, func(v *view) bool {
		id = v.last
		return true
	})
	if ok || err != nil {
		return id, wrapErr(err, "last message id of %q", channelID)
	}
	// Two index seeks (unread and read) instead of a scan of the channel.
	err = s.row(ctx, `SELECT max(
	coalesce((SELECT max(id) FROM messages WHERE channel_id = ?1 AND read = 0), 0),
	coalesce((SELECT max(id) FROM messages WHERE channel_id = ?1 AND read = 1), 0))`, channelID).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("last message id of %q: %w", channelID, err)
	}
	return id, nil
}

// Events returns the incoming (not own) messages in id order: of one
// channel when f.ChannelID is set, with a Time at or after f.Since when it
// is set.
func (s *Store) Events(ctx context.Context, f state.TickFilter) ([]state.Message, error) {
	out, err := scanMessages(s.query(ctx, `SELECT `+messageCols+` FROM messages
WHERE self = 0 AND (?1 = '' OR channel_id = ?1) AND (?2 = 0 OR time >= ?2) ORDER BY id`,
		f.ChannelID, encTime(f.Since)))
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	return out, nil
}

// ReminderSends returns the messages the reminder loop sent, in id order.
func (s *Store) ReminderSends(ctx context.Context, f state.TickFilter) ([]state.Message, error) {
	out, err := scanMessages(s.query(ctx, `SELECT `+messageCols+` FROM messages
WHERE self = 1 AND sender_id = ?3 AND (?1 = '' OR channel_id = ?1) AND (?2 = 0 OR time >= ?2) ORDER BY id`,
		f.ChannelID, encTime(f.Since), state.ReminderSenderID))
	if err != nil {
		return nil, fmt.Errorf("list reminder sends: %w", err)
	}
	return out, nil
}

// wrapErr wraps a non-nil err with what was being done; nil stays nil.
func wrapErr(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
