-- The number of read messages per channel, kept by triggers, so that the
-- history window does not count a channel's messages on every tick.
CREATE TABLE history_counts (
	channel_id text PRIMARY KEY,
	n          bigint NOT NULL
);
INSERT INTO history_counts (channel_id, n)
	SELECT channel_id, count(*) FROM messages WHERE read GROUP BY channel_id;

CREATE FUNCTION history_count_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO history_counts (channel_id, n) VALUES (NEW.channel_id, 1)
		ON CONFLICT (channel_id) DO UPDATE SET n = history_counts.n + 1;
	RETURN NULL;
END $$;

CREATE FUNCTION history_count_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE history_counts SET n = n - 1 WHERE channel_id = OLD.channel_id;
	RETURN NULL;
END $$;

CREATE TRIGGER messages_history_insert AFTER INSERT ON messages
	FOR EACH ROW WHEN (NEW.read) EXECUTE FUNCTION history_count_add();
CREATE TRIGGER messages_history_read AFTER UPDATE OF read ON messages
	FOR EACH ROW WHEN (NEW.read AND NOT OLD.read) EXECUTE FUNCTION history_count_add();
CREATE TRIGGER messages_history_delete AFTER DELETE ON messages
	FOR EACH ROW WHEN (OLD.read) EXECUTE FUNCTION history_count_remove();
