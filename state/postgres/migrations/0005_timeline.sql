-- The timeline of a channel (messages and ticks by time) and ticks by
-- outcome, paged by keyset. The outcome is derived from the record the way
-- state.Tick.Outcome derives it.
ALTER TABLE ticks ADD COLUMN outcome text GENERATED ALWAYS AS (CASE
	WHEN model_error <> '' THEN 'model-error'
	WHEN parse_error <> '' THEN 'parse-error'
	WHEN strpos(effects, '"kind":"send"') > 0 THEN 'sent'
	ELSE 'silent' END) STORED;
CREATE INDEX ticks_timeline ON ticks (channel_id, now, id);
CREATE INDEX ticks_outcome ON ticks (outcome, now, id);
CREATE INDEX ticks_channel_outcome ON ticks (channel_id, outcome, now, id);
CREATE INDEX messages_timeline ON messages (channel_id, time, id);
