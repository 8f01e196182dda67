-- The initial schema: the same data as the SQLite engine keeps, plus the
-- replica tables (replicas, leases, roles) used when several processes
-- serve one bot.
CREATE TABLE channels (
	id        text PRIMARY KEY,
	platform  text NOT NULL,
	native_id text NOT NULL DEFAULT '',
	grp       boolean NOT NULL DEFAULT false,
	title     text NOT NULL DEFAULT '',
	members   text NOT NULL DEFAULT '[]'
);

CREATE TABLE messages (
	id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	channel_id  text NOT NULL,
	platform_id text NOT NULL DEFAULT '',
	sender_id   text NOT NULL DEFAULT '',
	sender_name text NOT NULL DEFAULT '',
	self        boolean NOT NULL DEFAULT false,
	content     text NOT NULL DEFAULT '',
	reply_to    text NOT NULL DEFAULT '',
	mentioned   boolean NOT NULL DEFAULT false,
	time        timestamptz NOT NULL,
	read        boolean NOT NULL DEFAULT false
);
-- Deduplication key; messages without a platform id are never duplicates.
CREATE UNIQUE INDEX messages_platform ON messages (channel_id, platform_id) WHERE platform_id <> '';
-- Unread, history and the last id of a channel.
CREATE INDEX messages_channel ON messages (channel_id, read, id);
-- The unread pool across channels stays small, so counting it is cheap.
CREATE INDEX messages_unread ON messages (channel_id) WHERE NOT read;

CREATE TABLE actions (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	channel_id text NOT NULL,
	wake       bigint NOT NULL DEFAULT 0,
	action     text,
	name       text NOT NULL DEFAULT '',
	reasoning  text NOT NULL DEFAULT '',
	ok         boolean NOT NULL DEFAULT false,
	result     text NOT NULL DEFAULT '',
	time       timestamptz
);
CREATE INDEX actions_channel ON actions (channel_id, id);

-- replica is the process that recorded a send ('' outside replica mode);
-- a pending entry is in flight while its replica is alive.
CREATE TABLE outbox (
	id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	channel_id  text NOT NULL,
	content     text NOT NULL DEFAULT '',
	reply_to    text NOT NULL DEFAULT '',
	state       text NOT NULL,
	platform_id text NOT NULL DEFAULT '',
	error       text NOT NULL DEFAULT '',
	created     timestamptz,
	updated     timestamptz,
	replica     text NOT NULL DEFAULT ''
);
CREATE INDEX outbox_pending ON outbox (id) WHERE state = 'pending';

CREATE TABLE ticks (
	id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	channel_id        text NOT NULL,
	wake              bigint NOT NULL DEFAULT 0,
	trigger           text NOT NULL DEFAULT '',
	now               timestamptz,
	request           text NOT NULL DEFAULT '[]',
	raw               text NOT NULL DEFAULT '',
	reasoning         text NOT NULL DEFAULT '',
	prompt_tokens     integer NOT NULL DEFAULT 0,
	completion_tokens integer NOT NULL DEFAULT 0,
	cached_tokens     integer NOT NULL DEFAULT 0,
	latency_ms        bigint NOT NULL DEFAULT 0,
	action            text,
	parse_error       text NOT NULL DEFAULT '',
	model_error       text NOT NULL DEFAULT '',
	notes             text,
	result            text NOT NULL DEFAULT '',
	ok                boolean NOT NULL DEFAULT false,
	effects           text,
	sections          text,
	-- replica is the process that ran the tick, recorded stamps the insert.
	replica           text NOT NULL DEFAULT '',
	recorded          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ticks_channel ON ticks (channel_id, id);

CREATE TABLE cursors (
	key   text PRIMARY KEY,
	value text NOT NULL
);

-- Live processes: a replica is alive while expires is in the future; it
-- pushes expires forward with every heartbeat.
CREATE TABLE replicas (
	id      text PRIMARY KEY,
	started timestamptz NOT NULL DEFAULT now(),
	expires timestamptz NOT NULL
);

-- One lease per channel: the channel is driven by holder while holder is
-- alive. generation grows with every change of holder and fences sends.
CREATE TABLE leases (
	channel_id text PRIMARY KEY,
	holder     text NOT NULL DEFAULT '',
	generation bigint NOT NULL DEFAULT 0
);
CREATE INDEX leases_holder ON leases (holder);

-- Roles held by one replica at a time (platform intake), like leases.
CREATE TABLE roles (
	name       text PRIMARY KEY,
	holder     text NOT NULL DEFAULT '',
	generation bigint NOT NULL DEFAULT 0
);
