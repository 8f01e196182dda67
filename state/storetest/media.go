package storetest

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/airi-go/airi/state"
)

func testMedia(t *testing.T, s state.Store) {
	ctx := context.Background()
	in := msg("c1", "p1", 1)
	in.Content = "my cat"
	in.Media = []state.Media{{Kind: state.MediaPhoto, FileID: "f1", UniqueID: "u1", Width: 800, Height: 600, Size: 1234}}
	stored := ingest(t, s, in)

	t.Run("attachments are stored with the message", func(t *testing.T) {
		got, err := s.Unread(ctx, "c1", 0)
		if err != nil || len(got) != 1 {
			t.Fatalf("unread = %v, %v", got, err)
		}
		if len(got[0].Media) != 1 || got[0].Media[0] != in.Media[0] || got[0].Content != "my cat" {
			t.Errorf("unread message = %+v", got[0])
		}
	})
	t.Run("set attachments shows in the history", func(t *testing.T) {
		if err := s.MarkRead(ctx, []int64{stored.ID}); err != nil {
			t.Fatal(err)
		}
		// The history is read once before the change so that an engine
		// keeping it in memory has it to forget.
		if _, _, err := s.History(ctx, "c1", 10); err != nil {
			t.Fatal(err)
		}
		done := in.Media[0]
		done.Text, done.Hash = "a grey cat", "abc123"
		if err := s.SetMessageMedia(ctx, "c1", stored.ID, []state.Media{done}); err != nil {
			t.Fatal(err)
		}
		hist, _, err := s.History(ctx, "c1", 10)
		if err != nil || len(hist) != 1 {
			t.Fatalf("history = %v, %v", hist, err)
		}
		if len(hist[0].Media) != 1 || hist[0].Media[0] != done {
			t.Errorf("history attachments = %+v, want %+v", hist[0].Media, done)
		}
		if err := s.SetMessageMedia(ctx, "c1", stored.ID, []state.Media{{Kind: ""}}); err == nil {
			t.Error("an attachment without a kind was stored")
		}
	})
	t.Run("cache", func(t *testing.T) {
		if _, err := s.CachedMedia(ctx, "telegram:u1"); !errors.Is(err, state.ErrNotFound) {
			t.Fatalf("missing entry: err = %v, want ErrNotFound", err)
		}
		data := []byte("\x89PNG fake image bytes")
		e := state.MediaEntry{Key: "telegram:u1", Kind: state.MediaPhoto, Mime: "image/png", Hash: "h1", Size: int64(len(data)), Data: data, Created: at(3)}
		if err := s.PutMedia(ctx, e); err != nil {
			t.Fatal(err)
		}
		got, err := s.CachedMedia(ctx, "telegram:u1")
		if err != nil {
			t.Fatal(err)
		}
		if got.Kind != e.Kind || got.Mime != e.Mime || got.Hash != e.Hash || got.Text != "" || !bytes.Equal(got.Data, data) || !got.Created.Equal(at(3)) {
			t.Errorf("entry = %+v", got)
		}
		e.Text, e.Tokens = "a grey cat", 85
		if err := s.PutMedia(ctx, e); err != nil {
			t.Fatal(err)
		}
		if got, err = s.CachedMedia(ctx, "telegram:u1"); err != nil || got.Text != "a grey cat" || got.Tokens != 85 {
			t.Errorf("replaced entry = %+v, %v", got, err)
		}
		img, err := s.MediaImage(ctx, "h1")
		if err != nil || img.Mime != "image/png" || !bytes.Equal(img.Data, data) {
			t.Errorf("image = %+v, %v", img, err)
		}
		if _, err := s.MediaImage(ctx, "nope"); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("missing image: err = %v", err)
		}
		voice := state.MediaEntry{Key: "telegram:v1", Kind: state.MediaVoice, Hash: "h2", Text: `"hello"`}
		if err := s.PutMedia(ctx, voice); err != nil {
			t.Fatal(err)
		}
		if _, err := s.MediaImage(ctx, "h2"); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("an entry without bytes is served as an image: err = %v", err)
		}
		if err := s.PutMedia(ctx, state.MediaEntry{Kind: "photo"}); err == nil {
			t.Error("an entry without a key was stored")
		}
	})
}
