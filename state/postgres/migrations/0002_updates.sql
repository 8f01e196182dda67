-- Platform updates already handled (webhook intake, where one update may
-- reach several replicas or come again), kept for a while.
CREATE TABLE updates (
	key  text PRIMARY KEY,
	seen timestamptz NOT NULL
);
CREATE INDEX updates_seen ON updates (seen);
