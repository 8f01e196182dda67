package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

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

// CachedMedia returns the entry stored under key; see state.MediaCache.
func (s *Store) CachedMedia(ctx context.Context, key string) (state.MediaEntry, error) {
	var (
		e       state.MediaEntry
		created int64
	)
	err := s.row(ctx, `SELECT key, kind, mime, hash, text, tokens, size, data, created FROM media WHERE key = ?`, key).
		Scan(&e.Key, &e.Kind, &e.Mime, &e.Hash, &e.Text, &e.Tokens, &e.Size, &e.Data, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return state.MediaEntry{}, state.ErrNotFound
	}
	if err != nil {
		return state.MediaEntry{}, fmt.Errorf("read cached media %q: %w", key, err)
	}
	e.Created = decTime(created)
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
	var data any
	if e.Data != nil {
		data = e.Data
	}
	_, err := s.exec(ctx, `INSERT INTO media (key, kind, mime, hash, text, tokens, size, data, created)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (key) DO UPDATE SET kind = excluded.kind, mime = excluded.mime, hash = excluded.hash,
	text = excluded.text, tokens = excluded.tokens, size = excluded.size, data = excluded.data`,
		e.Key, e.Kind, e.Mime, e.Hash, e.Text, e.Tokens, e.Size, data, encTime(e.Created))
	if err != nil {
		return fmt.Errorf("store media %q: %w", e.Key, err)
	}
	return nil
}

// MediaImage returns a stored image by hash; see state.MediaCache.
func (s *Store) MediaImage(ctx context.Context, hash string) (state.Image, error) {
	img := state.Image{Hash: hash}
	err := s.row(ctx, `SELECT mime, data FROM media WHERE hash = ? AND data IS NOT NULL LIMIT 1`, hash).Scan(&img.Mime, &img.Data)
	if errors.Is(err, sql.ErrNoRows) {
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
	_, err := s.execApply(ctx, func(m *memo) {
		if m.on {
			m.forget(channelID)
		}
	}, `UPDATE messages SET media = ? WHERE id = ? AND channel_id = ?`, mediaJSON(media), id, channelID)
	if err != nil {
		return fmt.Errorf("set attachments of message %d: %w", id, err)
	}
	return nil
}
