package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"go.uber.org/zap"
)

// migrations are applied in order; the database's PRAGMA user_version is
// the number applied so far. Append only: never edit a released step.
var migrations = []string{
	// 1: the initial schema.
	`
CREATE TABLE channels (
	id        TEXT PRIMARY KEY,
	platform  TEXT NOT NULL,
	native_id TEXT NOT NULL DEFAULT '',
	grp       INTEGER NOT NULL DEFAULT 0,
	title     TEXT NOT NULL DEFAULT '',
	members   TEXT NOT NULL DEFAULT '[]'
);

CREATE TABLE messages (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	channel_id  TEXT NOT NULL,
	platform_id TEXT NOT NULL DEFAULT '',
	sender_id   TEXT NOT NULL DEFAULT '',
	sender_name TEXT NOT NULL DEFAULT '',
	self        INTEGER NOT NULL DEFAULT 0,
	content     TEXT NOT NULL DEFAULT '',
	reply_to    TEXT NOT NULL DEFAULT '',
	mentioned   INTEGER NOT NULL DEFAULT 0,
	time        INTEGER NOT NULL,
	read        INTEGER NOT NULL DEFAULT 0
);
-- Deduplication key; messages without a platform id are never duplicates.
CREATE UNIQUE INDEX messages_platform ON messages (channel_id, platform_id) WHERE platform_id <> '';
-- Unread (read = 0), history (read = 1) and the last id of a channel.
CREATE INDEX messages_channel ON messages (channel_id, read, id);
-- The unread pool across channels stays small, so counting it is cheap.
CREATE INDEX messages_unread ON messages (channel_id) WHERE read = 0;

CREATE TABLE actions (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	channel_id TEXT NOT NULL,
	wake       INTEGER NOT NULL DEFAULT 0,
	action     TEXT,
	name       TEXT NOT NULL DEFAULT '',
	reasoning  TEXT NOT NULL DEFAULT '',
	ok         INTEGER NOT NULL DEFAULT 0,
	result     TEXT NOT NULL DEFAULT '',
	time       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX actions_channel ON actions (channel_id, id);

CREATE TABLE outbox (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	channel_id  TEXT NOT NULL,
	content     TEXT NOT NULL DEFAULT '',
	reply_to    TEXT NOT NULL DEFAULT '',
	state       TEXT NOT NULL,
	platform_id TEXT NOT NULL DEFAULT '',
	error       TEXT NOT NULL DEFAULT '',
	created     INTEGER NOT NULL DEFAULT 0,
	updated     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX outbox_pending ON outbox (id) WHERE state = 'pending';

CREATE TABLE ticks (
	id                INTEGER PRIMARY KEY AUTOINCREMENT,
	channel_id        TEXT NOT NULL,
	wake              INTEGER NOT NULL DEFAULT 0,
	trigger           TEXT NOT NULL DEFAULT '',
	now               INTEGER NOT NULL DEFAULT 0,
	request           TEXT NOT NULL DEFAULT '[]',
	raw               TEXT NOT NULL DEFAULT '',
	reasoning         TEXT NOT NULL DEFAULT '',
	prompt_tokens     INTEGER NOT NULL DEFAULT 0,
	completion_tokens INTEGER NOT NULL DEFAULT 0,
	cached_tokens     INTEGER NOT NULL DEFAULT 0,
	latency_ms        INTEGER NOT NULL DEFAULT 0,
	action            TEXT,
	parse_error       TEXT NOT NULL DEFAULT '',
	model_error       TEXT NOT NULL DEFAULT '',
	notes             TEXT,
	result            TEXT NOT NULL DEFAULT '',
	ok                INTEGER NOT NULL DEFAULT 0,
	effects           TEXT
);
CREATE INDEX ticks_channel ON ticks (channel_id, id);

CREATE TABLE cursors (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
`,
	// 2: the size of each channel's history (read and own messages), kept
	// by triggers so that History does not count the channel every tick.
	`
CREATE TABLE history_counts (
	channel_id TEXT PRIMARY KEY,
	n          INTEGER NOT NULL
);
INSERT INTO history_counts (channel_id, n)
	SELECT channel_id, count(*) FROM messages WHERE read = 1 GROUP BY channel_id;
CREATE TRIGGER messages_history_insert AFTER INSERT ON messages WHEN new.read = 1 BEGIN
	INSERT INTO history_counts (channel_id, n) VALUES (new.channel_id, 1)
		ON CONFLICT (channel_id) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER messages_history_read AFTER UPDATE OF read ON messages WHEN new.read = 1 AND old.read = 0 BEGIN
	INSERT INTO history_counts (channel_id, n) VALUES (new.channel_id, 1)
		ON CONFLICT (channel_id) DO UPDATE SET n = n + 1;
END;
`,
	// 3: where each prompt section sits in a tick's request.
	`
ALTER TABLE ticks ADD COLUMN sections TEXT;
`,
	// 4: tokens spent per budget day and scope (a channel id, or "*" for
	// all channels), so that a restart keeps the day's count.
	`
CREATE TABLE token_usage (
	day    TEXT NOT NULL,
	scope  TEXT NOT NULL,
	tokens INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (day, scope)
);
`,
	// 5: platform updates already handled (webhook intake), kept for a while.
	`
CREATE TABLE updates (
	key  TEXT PRIMARY KEY,
	seen INTEGER NOT NULL
);
CREATE INDEX updates_seen ON updates (seen);
`,
	// 6: memory notes; deleted messages leave the history counts.
	`
CREATE TABLE notes (
	id        INTEGER PRIMARY KEY AUTOINCREMENT,
	scope     TEXT NOT NULL,
	subject   TEXT NOT NULL DEFAULT '',
	name      TEXT NOT NULL DEFAULT '',
	text      TEXT NOT NULL,
	shareable INTEGER NOT NULL DEFAULT 0,
	created   INTEGER NOT NULL,
	updated   INTEGER NOT NULL,
	used      INTEGER NOT NULL DEFAULT 0,
	tick      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX notes_subject ON notes (scope, subject, id);
CREATE TRIGGER IF NOT EXISTS messages_history_delete AFTER DELETE ON messages WHEN old.read = 1 BEGIN
	UPDATE history_counts SET n = n - 1 WHERE channel_id = old.channel_id;
END;
`,
	// 7: the timeline of a channel (messages and ticks by time) and ticks
	// by outcome, paged by keyset. The outcome is derived from the record
	// the way state.Tick.Outcome derives it.
	`
ALTER TABLE ticks ADD COLUMN outcome TEXT GENERATED ALWAYS AS (CASE
	WHEN model_error <> '' THEN 'model-error'
	WHEN parse_error <> '' THEN 'parse-error'
	WHEN instr(effects, '"kind":"send"') > 0 THEN 'sent'
	ELSE 'silent' END) VIRTUAL;
CREATE INDEX ticks_timeline ON ticks (channel_id, now, id);
CREATE INDEX ticks_outcome ON ticks (outcome, now, id);
CREATE INDEX ticks_channel_outcome ON ticks (channel_id, outcome, now, id);
CREATE INDEX messages_timeline ON messages (channel_id, time, id);
`,
	// 8: what the attention policy reads of a message besides its text: a
	// reply to the bot's own, and a sender that is a bot. Without them a
	// restart would take a bot's unread message for a human's.
	`
ALTER TABLE messages ADD COLUMN reply_to_self INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN from_bot INTEGER NOT NULL DEFAULT 0;
`,
	// 9: why each message woke its channel or did not, and the wakes that
	// were due but made no model call.
	`
ALTER TABLE messages ADD COLUMN decision TEXT NOT NULL DEFAULT '';
CREATE TABLE skipped_wakes (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	channel_id TEXT NOT NULL,
	trigger    TEXT NOT NULL DEFAULT '',
	reason     TEXT NOT NULL,
	time       INTEGER NOT NULL
);
CREATE INDEX skipped_wakes_channel ON skipped_wakes (channel_id, id);
`,
	// 10: operator controls per channel, counters of what retention
	// deleted, and the indexes retention deletes by.
	`
CREATE TABLE channel_controls (
	channel_id   TEXT PRIMARY KEY,
	paused       INTEGER NOT NULL DEFAULT 0,
	paused_until INTEGER NOT NULL DEFAULT 0,
	mode         TEXT NOT NULL DEFAULT ''
);
CREATE TABLE counters (
	name TEXT PRIMARY KEY,
	n    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX ticks_now ON ticks (now);
CREATE INDEX messages_time ON messages (time) WHERE read = 1;
`,
	// 11: the system messages of tick requests stored once, as bases: a
	// tick's request keeps what its system message adds past the part it
	// shares with its base (base_len bytes). Most of a system message is
	// the same on every tick.
	`
CREATE TABLE prompt_bases (
	id   INTEGER PRIMARY KEY,
	text TEXT NOT NULL
);
ALTER TABLE ticks ADD COLUMN base INTEGER;
ALTER TABLE ticks ADD COLUMN base_len INTEGER NOT NULL DEFAULT 0;
`,
	// 12: messages_channel (channel_id, read, id) finds a channel's
	// unread messages as well as the partial index of them did, which
	// every message stored and read also had to update.
	`
DROP INDEX messages_unread;
`,
	// 13: sender ids and the subjects of user notes are qualified with
	// the platform ("telegram:501"), so that two platforms' users with
	// the same id are two people. A user note takes the platform of the
	// chat whose tick wrote it, else the one platform its subject wrote
	// from; a subject seen on several platforms is left as it was, and
	// then matches no one. A Satori channel's platform is its id's prefix
	// when it has one (the login's platform), else "satori".
	`
CREATE TEMP VIEW chan_platform AS SELECT id,
	CASE WHEN platform = 'satori' AND instr(id, ':') > 0 THEN substr(id, 1, instr(id, ':') - 1) ELSE platform END AS p
	FROM channels;
UPDATE notes SET subject = (SELECT cp.p FROM ticks t JOIN chan_platform cp ON cp.id = t.channel_id WHERE t.id = notes.tick) || ':' || subject
WHERE scope = 'user' AND subject <> '' AND instr(subject, ':') = 0 AND tick <> 0
	AND EXISTS (SELECT 1 FROM ticks t JOIN chan_platform cp ON cp.id = t.channel_id WHERE t.id = notes.tick);
UPDATE notes SET subject = (SELECT min(cp.p) FROM messages m JOIN chan_platform cp ON cp.id = m.channel_id WHERE m.sender_id = notes.subject) || ':' || subject
WHERE scope = 'user' AND subject <> '' AND instr(subject, ':') = 0
	AND (SELECT count(DISTINCT cp.p) FROM messages m JOIN chan_platform cp ON cp.id = m.channel_id WHERE m.sender_id = notes.subject) = 1;
UPDATE messages SET sender_id = (SELECT cp.p FROM chan_platform cp WHERE cp.id = messages.channel_id) || ':' || sender_id
WHERE sender_id <> '' AND instr(sender_id, ':') = 0 AND EXISTS (SELECT 1 FROM chan_platform cp WHERE cp.id = messages.channel_id);
DROP VIEW chan_platform;
`,
	// 14: messages edited or deleted on the platform after they arrived.
	// A deleted message is read (it left the unread pool) but not in the
	// history, so the history counts leave it out.
	`
ALTER TABLE messages ADD COLUMN edited INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN previous TEXT NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN changed INTEGER NOT NULL DEFAULT 0;
DROP TRIGGER messages_history_read;
CREATE TRIGGER messages_history_read AFTER UPDATE OF read ON messages WHEN new.read = 1 AND old.read = 0 AND new.deleted = 0 BEGIN
	INSERT INTO history_counts (channel_id, n) VALUES (new.channel_id, 1)
		ON CONFLICT (channel_id) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER messages_history_deleted AFTER UPDATE OF deleted ON messages WHEN new.deleted = 1 AND old.deleted = 0 AND old.read = 1 BEGIN
	UPDATE history_counts SET n = n - 1 WHERE channel_id = old.channel_id;
END;
DROP TRIGGER messages_history_delete;
CREATE TRIGGER messages_history_delete AFTER DELETE ON messages WHEN old.read = 1 AND old.deleted = 0 BEGIN
	UPDATE history_counts SET n = n - 1 WHERE channel_id = old.channel_id;
END;
`,
	// 15: what an outbox entry puts in the chat (a message or a
	// reaction), and the reactions to the bot's own messages until the
	// bot has been shown them.
	`
ALTER TABLE outbox ADD COLUMN kind TEXT NOT NULL DEFAULT '';
CREATE TABLE reactions (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	channel_id  TEXT NOT NULL,
	message_id  TEXT NOT NULL,
	sender_id   TEXT NOT NULL DEFAULT '',
	sender_name TEXT NOT NULL DEFAULT '',
	from_bot    INTEGER NOT NULL DEFAULT 0,
	emoji       TEXT NOT NULL,
	removed     INTEGER NOT NULL DEFAULT 0,
	time        INTEGER NOT NULL,
	shown       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX reactions_new ON reactions (channel_id, id) WHERE shown = 0;
-- An update received twice (a poll fetched again, a webhook retried)
-- stores its reaction once.
CREATE UNIQUE INDEX reactions_once ON reactions (channel_id, message_id, sender_id, emoji, removed, time);
`,
	// 16: reminders; pending ones are found by due time.
	`
CREATE TABLE reminders (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	channel_id TEXT NOT NULL,
	created_by TEXT NOT NULL DEFAULT '',
	content    TEXT NOT NULL,
	first      INTEGER NOT NULL,
	due        INTEGER NOT NULL,
	every      TEXT NOT NULL DEFAULT '',
	zone       TEXT NOT NULL,
	compose    INTEGER NOT NULL DEFAULT 0,
	state      TEXT NOT NULL,
	count      INTEGER NOT NULL DEFAULT 0,
	outbox     INTEGER NOT NULL DEFAULT 0,
	created    INTEGER NOT NULL,
	updated    INTEGER NOT NULL
);
CREATE INDEX reminders_due ON reminders (due, id) WHERE state = 'pending';
CREATE INDEX reminders_channel ON reminders (channel_id, state);
`,
	// 17: a message's attachments, and what was made of each fetched
	// file, under the platform's file id.
	`
ALTER TABLE messages ADD COLUMN media TEXT NOT NULL DEFAULT '';
CREATE TABLE media (
	key     TEXT PRIMARY KEY,
	kind    TEXT NOT NULL,
	mime    TEXT NOT NULL DEFAULT '',
	hash    TEXT NOT NULL DEFAULT '',
	text    TEXT NOT NULL DEFAULT '',
	tokens  INTEGER NOT NULL DEFAULT 0,
	size    INTEGER NOT NULL DEFAULT 0,
	data    BLOB,
	created INTEGER NOT NULL
);
CREATE INDEX media_hash ON media (hash) WHERE data IS NOT NULL;
`,
}

// SchemaVersion is the schema version this build creates and understands.
func SchemaVersion() int { return len(migrations) }

// migrate applies the pending steps of migrations, each in its own
// transaction together with the version bump, so a crash or a failing step
// leaves the database at a whole version.
func (s *Store) migrate(ctx context.Context, migrations []string) error {
	var version int
	if err := s.writer.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if version > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this build knows (%d)", version, len(migrations))
	}
	for v := version; v < len(migrations); v++ {
		err := s.write(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
				return err
			}
			// PRAGMA takes no parameters; v+1 is our own integer.
			_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1))
			return err
		})
		if err != nil {
			return fmt.Errorf("apply migration %d: %w", v+1, err)
		}
		s.logger.Info("applied migration", zap.Int("version", v+1))
	}
	return nil
}
