-- What the attention policy reads of a message besides its text: a reply
-- to the bot's own, and a sender that is a bot. Without them a restart
-- would take a bot's unread message for a human's.
ALTER TABLE messages ADD COLUMN reply_to_self boolean NOT NULL DEFAULT false;
ALTER TABLE messages ADD COLUMN from_bot boolean NOT NULL DEFAULT false;
