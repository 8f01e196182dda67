-- Sender ids and the subjects of user notes are qualified with the
-- platform ("telegram:501"), so that two platforms' users with the same id
-- are two people. A user note takes the platform of the chat whose tick
-- wrote it, else the one platform its subject wrote from; a subject seen
-- on several platforms is left as it was, and then matches no one. A
-- Satori channel's platform is its id's prefix when it has one (the
-- login's platform), else 'satori'.
CREATE TEMP VIEW chan_platform AS SELECT id,
	CASE WHEN platform = 'satori' AND position(':' in id) > 0 THEN split_part(id, ':', 1) ELSE platform END AS p
	FROM channels;
UPDATE notes SET subject = (SELECT cp.p FROM ticks t JOIN chan_platform cp ON cp.id = t.channel_id WHERE t.id = notes.tick) || ':' || subject
WHERE scope = 'user' AND subject <> '' AND position(':' in subject) = 0 AND tick <> 0
	AND EXISTS (SELECT 1 FROM ticks t JOIN chan_platform cp ON cp.id = t.channel_id WHERE t.id = notes.tick);
UPDATE notes SET subject = (SELECT min(cp.p) FROM messages m JOIN chan_platform cp ON cp.id = m.channel_id WHERE m.sender_id = notes.subject) || ':' || subject
WHERE scope = 'user' AND subject <> '' AND position(':' in subject) = 0
	AND (SELECT count(DISTINCT cp.p) FROM messages m JOIN chan_platform cp ON cp.id = m.channel_id WHERE m.sender_id = notes.subject) = 1;
UPDATE messages SET sender_id = cp.p || ':' || messages.sender_id
FROM chan_platform cp
WHERE cp.id = messages.channel_id AND messages.sender_id <> '' AND position(':' in messages.sender_id) = 0;
DROP VIEW chan_platform;
