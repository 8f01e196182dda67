package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/airi-go/airi/state"
)

// mediaJSON is the stored form of a message's attachments ("" for none).
func mediaJSON(media []state.Media) string {
	if len(media) == 0 {
		return ""
	}
	b, err := json.Marshal(media)
	if err != nil {
		// Media holds strings and numbers only.
		panic(fmt.Sprintf("encode attachments: %v", err))
	}
	return string(b)
}

// decodeMedia reads the stored form of a message's attachments.
func decodeMedia(s string) ([]state.Media, error) {
	if s == "" {
		return nil, nil
	}
	var media []state.Media
	if err := json.Unmarshal([]byte(s), &media); err != nil {
		return nil, fmt.Errorf("decode attachments: %w", err)
	}
	return media, nil
}

// CachedMedia returns the entry stored under key; see state.MediaCache.
func (s *Store) CachedMedia(ctx context.Context, key string) (state.MediaEntry, error) {
	var e state.MediaEntry
	err := s.pool.QueryRow(ctx, `SELECT key, kind, mime, hash, text, tokens, size, data, created FROM media WHERE key = $1`, key).
		Scan(&e.Key, &e.Kind, &e.Mime, &e.Hash, &e.Text, &e.Tokens, &e.Size, &e.Data, &e.Created)
	if errors.Is(err, pgx.ErrNoRows) {
		return state.MediaEntry{}, state.ErrNotFound
	}
	if err != nil {
		return state.MediaEntry{}, fmt.Errorf("read cached media %q: %w", key, err)
	}
	e.Created = e.Created.UTC()
	return e, nil
}

// PutMedia stores an entry under its key; see state.MediaCache.
func (s *Store) PutMedia(ctx context.Context, e state.MediaEntry) error {
	if e.Key == "" {
		return errors.New("store media: empty key")
	}
	if e.Created.IsZero() {
		e.Created = s.Now()
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO media (key, kind, mime, hash, text, tokens, size, data, created)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (key) DO UPDATE SET kind = excluded.kind, mime = excluded.mime, hash = excluded.hash,
	text = excluded.text, tokens = excluded.tokens, size = excluded.size, data = excluded.data`,
		e.Key, e.Kind, e.Mime, e.Hash, e.Text, e.Tokens, e.Size, e.Data, normTime(e.Created))
	if err != nil {
		return fmt.Errorf("store media %q: %w", e.Key, err)
	}
	return nil
}

// MediaImage returns a stored image by hash; see state.MediaCache.
func (s *Store) MediaImage(ctx context.Context, hash string) (state.Image, error) {
	img := state.Image{Hash: hash}
	err := s.pool.QueryRow(ctx, `SELECT mime, data FROM media WHERE hash = $1 AND data IS NOT NULL LIMIT 1`, hash).Scan(&img.Mime, &img.Data)
	if errors.Is(err, pgx.ErrNoRows) {
		return state.Image{}, state.ErrNotFound
	}
	if err != nil {
		return state.Image{}, fmt.Errorf("read image %q: %w", hash, err)
	}
	return img, nil
}

// SetMessageMedia replaces a stored message's attachments; see
// state.MediaCache.
func (s *Store) SetMessageMedia(ctx context.Context, channelID string, id int64, media []state.Media) error {
	for i, md := range media {
		if err := md.Validate(); err != nil {
			return fmt.Errorf("set attachments of message %d: attachment %d: %w", id, i, err)
		}
	}
	if _, err := s.pool.Exec(ctx, `UPDATE messages SET media = $1 WHERE id = $2 AND channel_id = $3`, mediaJSON(media), id, channelID); err != nil {
		return fmt.Errorf("set attachments of message %d: %w", id, err)
	}
	return nil
}
