-- What an outbox entry puts in the chat (a message or a reaction), and the
-- reactions to the bot's own messages until the bot has been shown them.
ALTER TABLE outbox ADD COLUMN kind text NOT NULL DEFAULT '';
CREATE TABLE reactions (
	id          bigserial PRIMARY KEY,
	channel_id  text NOT NULL,
	message_id  text NOT NULL,
	sender_id   text NOT NULL DEFAULT '',
	sender_name text NOT NULL DEFAULT '',
	from_bot    boolean NOT NULL DEFAULT false,
	emoji       text NOT NULL,
	removed     boolean NOT NULL DEFAULT false,
	time        timestamptz NOT NULL,
	shown       boolean NOT NULL DEFAULT false
);
CREATE INDEX reactions_new ON reactions (channel_id, id) WHERE NOT shown;
-- An update received twice (a poll fetched again, a webhook retried)
-- stores its reaction once.
CREATE UNIQUE INDEX reactions_once ON reactions (channel_id, message_id, sender_id, emoji, removed, time);
