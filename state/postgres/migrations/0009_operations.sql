-- Operator controls per channel, counters of what retention deleted, and
-- the indexes retention deletes by.
CREATE TABLE channel_controls (
	channel_id   text PRIMARY KEY,
	paused       boolean NOT NULL DEFAULT false,
	paused_until timestamptz,
	mode         text NOT NULL DEFAULT ''
);
CREATE TABLE counters (
	name text PRIMARY KEY,
	n    bigint NOT NULL DEFAULT 0
);
CREATE INDEX ticks_now ON ticks (now);
CREATE INDEX messages_time ON messages (time) WHERE read;
