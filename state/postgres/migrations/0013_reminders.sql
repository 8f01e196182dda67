-- Reminders; pending ones are found by due time.
CREATE TABLE reminders (
	id         bigserial PRIMARY KEY,
	channel_id text NOT NULL,
	created_by text NOT NULL DEFAULT '',
	content    text NOT NULL,
	first      timestamptz NOT NULL,
	due        timestamptz NOT NULL,
	every      text NOT NULL DEFAULT '',
	zone       text NOT NULL,
	compose    boolean NOT NULL DEFAULT false,
	state      text NOT NULL,
	count      integer NOT NULL DEFAULT 0,
	outbox     bigint NOT NULL DEFAULT 0,
	created    timestamptz NOT NULL,
	updated    timestamptz NOT NULL
);
CREATE INDEX reminders_due ON reminders (due, id) WHERE state = 'pending';
CREATE INDEX reminders_channel ON reminders (channel_id, state);
