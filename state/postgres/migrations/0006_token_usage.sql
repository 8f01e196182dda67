-- Tokens spent per budget day and scope (a channel id, or "*" for all
-- channels), shared by every replica, so that a restart keeps the day's
-- count and several replicas spend one budget.
CREATE TABLE token_usage (
	day    text NOT NULL,
	scope  text NOT NULL,
	tokens bigint NOT NULL DEFAULT 0,
	PRIMARY KEY (day, scope)
);
