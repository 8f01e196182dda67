-- Why each message woke its channel or did not, and the wakes that were
-- due but made no model call.
ALTER TABLE messages ADD COLUMN decision text NOT NULL DEFAULT '';
CREATE TABLE skipped_wakes (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	channel_id text NOT NULL,
	trigger    text NOT NULL DEFAULT '',
	reason     text NOT NULL,
	time       timestamptz NOT NULL
);
CREATE INDEX skipped_wakes_channel ON skipped_wakes (channel_id, id);
