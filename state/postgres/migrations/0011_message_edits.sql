-- Messages edited or deleted on the platform after they arrived. A deleted
-- message is read (it left the unread pool) but not in the history, so the
-- history counts leave it out.
ALTER TABLE messages ADD COLUMN edited boolean NOT NULL DEFAULT false;
ALTER TABLE messages ADD COLUMN previous text NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN deleted boolean NOT NULL DEFAULT false;
ALTER TABLE messages ADD COLUMN changed timestamptz;
DROP TRIGGER messages_history_read ON messages;
CREATE TRIGGER messages_history_read AFTER UPDATE OF read ON messages
	FOR EACH ROW WHEN (NEW.read AND NOT OLD.read AND NOT NEW.deleted) EXECUTE FUNCTION history_count_add();
CREATE TRIGGER messages_history_deleted AFTER UPDATE OF deleted ON messages
	FOR EACH ROW WHEN (NEW.deleted AND NOT OLD.deleted AND OLD.read) EXECUTE FUNCTION history_count_remove();
DROP TRIGGER messages_history_delete ON messages;
CREATE TRIGGER messages_history_delete AFTER DELETE ON messages
	FOR EACH ROW WHEN (OLD.read AND NOT OLD.deleted) EXECUTE FUNCTION history_count_remove();
