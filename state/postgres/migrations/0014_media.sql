-- A message's attachments, and what was made of each fetched file,
-- under the platform's file id.
ALTER TABLE messages ADD COLUMN media text NOT NULL DEFAULT '';
CREATE TABLE media (
	key     text PRIMARY KEY,
	kind    text NOT NULL,
	mime    text NOT NULL DEFAULT '',
	hash    text NOT NULL DEFAULT '',
	text    text NOT NULL DEFAULT '',
	tokens  bigint NOT NULL DEFAULT 0,
	size    bigint NOT NULL DEFAULT 0,
	data    bytea,
	created timestamptz NOT NULL
);
CREATE INDEX media_hash ON media (hash) WHERE data IS NOT NULL;
