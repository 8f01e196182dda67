-- Memory notes: what the bot keeps about people, chats and itself beyond
-- the history window.
CREATE TABLE notes (
	id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	scope     text NOT NULL,
	subject   text NOT NULL DEFAULT '',
	name      text NOT NULL DEFAULT '',
	text      text NOT NULL,
	shareable boolean NOT NULL DEFAULT false,
	created   timestamptz NOT NULL,
	updated   timestamptz NOT NULL,
	used      timestamptz,
	tick      bigint NOT NULL DEFAULT 0
);
CREATE INDEX notes_subject ON notes (scope, subject, id);
