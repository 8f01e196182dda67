package media

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state"
)

// looker looks at the attachments of one request.
type looker struct {
	r         *Room
	channelID string
	fetch     Fetcher
	platform  string
	looks     int
	tokens    int64
	notes     []string
	// transient says the attachment looked at last has an outcome that
	// may change (a budget spent, a download that failed): shown, not
	// kept.
	transient bool
	// fetched counts the bytes downloaded for it.
	fetched int64
}

// looked reports whether something was made of an attachment already.
func looked(md state.Media) bool { return md.Text != "" || md.Hash != "" }

// imageKind reports whether the model can be shown md as an image (its
// own bytes or its thumbnail).
func imageKind(md state.Media) bool {
	switch md.Kind {
	case state.MediaPhoto:
		return true
	case state.MediaSticker, state.MediaVideoNote, state.MediaVideo, state.MediaAnimation:
		return !thumbOnly(md) || md.Thumb != ""
	case state.MediaDocument:
		return strings.HasPrefix(md.Mime, "image/") && md.Mime != "image/svg+xml"
	}
	return false
}

// thumbOnly reports whether only md's thumbnail is an image: an animated
// sticker or a video.
func thumbOnly(md state.Media) bool {
	switch md.Kind {
	case state.MediaSticker:
		return md.Animated || (md.Mime != "" && !strings.HasPrefix(md.Mime, "image/"))
	case state.MediaVideoNote, state.MediaVideo, state.MediaAnimation:
		return true
	}
	return false
}

// textDocument reports whether md is a small text file worth reading.
func textDocument(md state.Media) bool {
	if md.Kind != state.MediaDocument || md.Size <= 0 || md.Size > textMaxBytes {
		return false
	}
	mt := md.Mime
	return strings.HasPrefix(mt, "text/") || mt == "application/json" || mt == "application/x-yaml" || mt == "application/xml"
}

// look fills md.Text and md.Hash if something is to be made of md now,
// and reports whether that is lasting (kept on the message). Only store
// errors are returned.
func (lk *looker) look(ctx context.Context, md *state.Media) (lasting bool, err error) {
	cfg := lk.r.cfg
	if looked(*md) || cfg.Mode == ModeOff && md.Kind != state.MediaVoice {
		return false, nil
	}
	lk.transient = false
	switch {
	case md.Kind == state.MediaVoice:
		err = lk.voice(ctx, md)
	case imageKind(*md):
		err = lk.picture(ctx, md)
	case md.Kind == state.MediaDocument && md.Size > cfg.MaxBytes:
		lk.note(md, OutcomeTooLarge, 0)
		md.Text = overLimit(md.Size, cfg.MaxBytes)
	case textDocument(*md):
		err = lk.document(ctx, md)
	}
	return err == nil && looked(*md) && !lk.transient, err
}

// picture describes an image (or, inline, fetches it to be sent).
func (lk *looker) picture(ctx context.Context, md *state.Media) error {
	thumb := thumbOnly(*md)
	e, ok, err := lk.cached(ctx, *md, thumb)
	if err != nil || ok && e.Text != "" {
		if ok {
			md.Text, md.Hash = e.Text, e.Hash
			lk.note(md, OutcomeCached, 0)
		}
		return err
	}
	if !ok {
		if e, ok = lk.download(ctx, md, thumb); !ok {
			return nil
		}
		if err := lk.r.d.Store.PutMedia(ctx, e); err != nil {
			return fmt.Errorf("cache %s: %w", md.Kind, err)
		}
	}
	md.Hash = e.Hash
	if lk.r.cfg.Mode == ModeInline || lk.r.d.Describer == nil {
		lk.note(md, OutcomeFetched, 0)
		return nil
	}
	text, spent, ok := lk.spend(ctx, md, visionEstimate, func() (string, int64, error) {
		return lk.r.d.Describer.Describe(ctx, state.Image{Mime: e.Mime, Hash: e.Hash, Data: e.Data}, md.Kind)
	})
	if !ok {
		return nil
	}
	md.Text = oneParagraph(text)
	e.Text, e.Tokens = md.Text, spent
	if err := lk.r.d.Store.PutMedia(ctx, e); err != nil {
		return fmt.Errorf("cache the description of a %s: %w", md.Kind, err)
	}
	lk.note(md, OutcomeDescribed, spent)
	return nil
}

// voice transcribes a voice note.
func (lk *looker) voice(ctx context.Context, md *state.Media) error {
	if lk.r.d.Transcriber == nil {
		return nil
	}
	if limit := lk.r.cfg.VoiceMaxSeconds; md.Duration > limit {
		md.Text = fmt.Sprintf("not transcribed, longer than %d:%02d", limit/60, limit%60)
		lk.note(md, OutcomeTooLong, 0)
		return nil
	}
	e, ok, err := lk.cached(ctx, *md, false)
	if err != nil || ok && e.Text != "" {
		if ok {
			md.Text, md.Hash = e.Text, e.Hash
			lk.note(md, OutcomeCached, 0)
		}
		return err
	}
	if !ok {
		if e, ok = lk.download(ctx, md, false); !ok {
			return nil
		}
		if err := lk.r.d.Store.PutMedia(ctx, e); err != nil {
			return fmt.Errorf("cache a voice note: %w", err)
		}
	}
	md.Hash = e.Hash
	seconds := int64(max(md.Duration, 1))
	text, _, ok := lk.spend(ctx, md, seconds*SpeechTokensPerSecond, func() (string, int64, error) {
		t, err := lk.r.d.Transcriber.Transcribe(ctx, e.Data, audioName(*md, e.Mime))
		return t, seconds * SpeechTokensPerSecond, err
	})
	if !ok {
		return nil
	}
	md.Text = quoted(text)
	if strings.TrimSpace(text) == "" {
		md.Text = "no speech heard"
	}
	// The audio is not kept once transcribed.
	e.Text, e.Tokens, e.Data = md.Text, seconds*SpeechTokensPerSecond, nil
	if err := lk.r.d.Store.PutMedia(ctx, e); err != nil {
		return fmt.Errorf("cache a transcript: %w", err)
	}
	lk.note(md, OutcomeTranscribed, e.Tokens)
	return nil
}

// document reads a small text file.
func (lk *looker) document(ctx context.Context, md *state.Media) error {
	e, ok, err := lk.cached(ctx, *md, false)
	if err != nil || ok && e.Text != "" {
		if ok {
			md.Text, md.Hash = e.Text, e.Hash
			lk.note(md, OutcomeCached, 0)
		}
		return err
	}
	if !ok {
		if e, ok = lk.download(ctx, md, false); !ok {
			return nil
		}
	}
	text := string(e.Data)
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	md.Hash, md.Text = e.Hash, quoted(text)
	e.Text, e.Data = md.Text, nil
	if err := lk.r.d.Store.PutMedia(ctx, e); err != nil {
		return fmt.Errorf("cache a document's text: %w", err)
	}
	lk.note(md, OutcomeRead, 0)
	return nil
}

// key is the cache key of md (or of its thumbnail).
func (lk *looker) key(md state.Media, thumb bool) string {
	id := md.UniqueID
	if id == "" {
		id = md.FileID
	}
	if thumb {
		id = md.ThumbUnique
		if id == "" {
			id = md.Thumb
		}
	}
	if id == "" {
		return ""
	}
	return lk.platform + ":" + id
}

// cached returns the cache entry of md, if any.
func (lk *looker) cached(ctx context.Context, md state.Media, thumb bool) (state.MediaEntry, bool, error) {
	key := lk.key(md, thumb)
	if key == "" {
		return state.MediaEntry{}, false, nil
	}
	e, err := lk.r.d.Store.CachedMedia(ctx, key)
	if errors.Is(err, state.ErrNotFound) {
		return state.MediaEntry{}, false, nil
	}
	if err != nil {
		return state.MediaEntry{}, false, fmt.Errorf("look up cached media: %w", err)
	}
	return e, true, nil
}

// download fetches md (or its thumbnail) within the byte limit. On
// failure it sets md.Text to why and reports false.
func (lk *looker) download(ctx context.Context, md *state.Media, thumb bool) (state.MediaEntry, bool) {
	limit := lk.r.cfg.MaxBytes
	key := lk.key(*md, thumb)
	switch {
	case !thumb && md.Size > limit:
		md.Text = overLimit(md.Size, limit)
		lk.note(md, OutcomeTooLarge, 0)
		return state.MediaEntry{}, false
	case lk.fetch == nil || key == "":
		md.Text = "not fetched, this chat's platform serves no files"
		lk.note(md, OutcomeForeign, 0)
		return state.MediaEntry{}, false
	case lk.looks >= maxLooks:
		// Left for a later request; the placeholder shows meanwhile.
		return state.MediaEntry{}, false
	}
	lk.looks++
	data, mime, err := lk.fetch.FetchMedia(ctx, *md, thumb, limit)
	var tooLarge *adapters.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		md.Text = overLimit(tooLarge.Size, limit)
		lk.note(md, OutcomeTooLarge, 0)
		return state.MediaEntry{}, false
	case errors.Is(err, adapters.ErrForeignSource):
		md.Text = "not fetched, the file is not on the chat's own server"
		lk.note(md, OutcomeForeign, 0)
		return state.MediaEntry{}, false
	case err != nil:
		lk.r.d.Log.Warn("fetch media", zap.String("channel", lk.channelID), zap.String("kind", md.Kind), zap.Error(err))
		md.Text = "not fetched, the download failed"
		lk.note(md, OutcomeFailed, 0)
		lk.transient = true
		return state.MediaEntry{}, false
	}
	if mime == "" || mime == "application/octet-stream" {
		mime = http.DetectContentType(data)
	}
	lk.fetched += int64(len(data))
	sum := sha256.Sum256(data)
	return state.MediaEntry{Key: key, Kind: md.Kind, Mime: mime, Hash: hex.EncodeToString(sum[:]),
		Size: int64(len(data)), Data: data, Created: lk.r.d.Now()}, true
}

// spend makes one vision or speech call within the budget. On failure it
// sets md.Text to why and reports false.
func (lk *looker) spend(ctx context.Context, md *state.Media, estimate int64, call func() (string, int64, error)) (string, int64, bool) {
	now := lk.r.d.Now()
	release := func(int64) {}
	if b := lk.r.d.Budget; b != nil {
		lvl, err := b.Level(ctx, lk.channelID, now)
		ok := err == nil && lvl < budget.Fallback
		if ok {
			release, ok, err = b.Admit(ctx, lk.channelID, now, estimate)
		}
		if err != nil {
			lk.r.d.Log.Warn("read token budget", zap.String("channel", lk.channelID), zap.Error(err))
		}
		if !ok {
			md.Text = "not looked at, today's token budget is spent"
			lk.note(md, OutcomeBudget, 0)
			lk.transient = true
			return "", 0, false
		}
	}
	text, tokens, err := call()
	release(tokens)
	if err != nil {
		lk.r.d.Log.Warn("look at media", zap.String("channel", lk.channelID), zap.String("kind", md.Kind), zap.Error(err))
		md.Text = "not looked at, the model call failed"
		lk.note(md, OutcomeFailed, 0)
		lk.transient = true
		return "", 0, false
	}
	lk.tokens += tokens
	return text, tokens, true
}

// image returns the bytes of an image by hash, from this request or the
// store; none when they are no longer kept.
func (lk *looker) image(ctx context.Context, hash string) (state.Image, error) {
	img, err := lk.r.d.Store.MediaImage(ctx, hash)
	if errors.Is(err, state.ErrNotFound) {
		return state.Image{}, nil
	}
	if err != nil {
		return state.Image{}, fmt.Errorf("read image: %w", err)
	}
	return img, nil
}

// HashPrefix marks the hash of a file in a tick record's media notes
// ("media: photo described (85 tokens) sha256:9f86…"), so the inspector
// can show the image the note is about.
const HashPrefix = "sha256:"

// note records what was done with an attachment.
func (lk *looker) note(md *state.Media, outcome string, tokens int64) {
	line := fmt.Sprintf("media: %s %s", md.Kind, outcome)
	if tokens > 0 {
		line += fmt.Sprintf(" (%d tokens)", tokens)
	}
	if md.Hash != "" {
		line += " " + HashPrefix + md.Hash
	}
	lk.notes = append(lk.notes, line)
	if lk.r.d.OnMedia != nil {
		lk.r.d.OnMedia(md.Kind, outcome, lk.fetched)
	}
	lk.fetched = 0
}

// overLimit says why a file was not fetched.
func overLimit(size, limit int64) string {
	if size > 0 {
		return fmt.Sprintf("not fetched, %s is over the %s limit", state.SizeText(size), state.SizeText(limit))
	}
	return fmt.Sprintf("not fetched, over the %s limit", state.SizeText(limit))
}

// oneParagraph is a description on one line, cut to a short paragraph.
func oneParagraph(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return cutRunes(s, 600)
}

// quoted is a transcript or a document's text as a label shows it, in
// typographic quotes: the message around it is quoted with plain ones.
func quoted(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, `"`, "'")
	return "“" + cutRunes(s, textMaxRunes) + "”"
}

// cutRunes cuts s to n runes, marking the cut.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// audioName is the file name a speech endpoint sees; its extension tells
// the format.
func audioName(md state.Media, mime string) string {
	if md.Name != "" {
		return md.Name
	}
	switch {
	case strings.Contains(mime, "mpeg"), strings.Contains(mime, "mp3"):
		return "voice.mp3"
	case strings.Contains(mime, "wav"):
		return "voice.wav"
	case strings.Contains(mime, "mp4"), strings.Contains(mime, "m4a"):
		return "voice.m4a"
	}
	return "voice.ogg"
}
