package telegram

import (
	"strings"

	"github.com/mymmrac/telego"

	"github.com/airi-go/airi/state"
)

// DefaultMediaMaxBytes is the largest photo size taken when
// Config.MediaMaxBytes is zero.
const DefaultMediaMaxBytes = 10 << 20

// media lists the attachment of a message, as Telegram announced it:
// where the file is (its file_id) and what it is. Nothing is fetched
// here; the photo size kept is the largest of at most max bytes.
func media(m *telego.Message, max int64) []state.Media {
	var md state.Media
	switch {
	case len(m.Photo) > 0:
		p := pickPhoto(m.Photo, max)
		md = state.Media{Kind: state.MediaPhoto, FileID: p.FileID, UniqueID: p.FileUniqueID,
			Width: p.Width, Height: p.Height, Size: int64(p.FileSize)}
	case m.Sticker != nil:
		s := m.Sticker
		md = state.Media{Kind: state.MediaSticker, FileID: s.FileID, UniqueID: s.FileUniqueID,
			Emoji: s.Emoji, Set: s.SetName, Animated: s.IsAnimated || s.IsVideo,
			Width: s.Width, Height: s.Height, Size: int64(s.FileSize), Mime: stickerMime(s)}
		setThumb(&md, s.Thumbnail)
	case m.Voice != nil:
		v := m.Voice
		md = state.Media{Kind: state.MediaVoice, FileID: v.FileID, UniqueID: v.FileUniqueID,
			Duration: v.Duration, Mime: v.MimeType, Size: v.FileSize}
	case m.Audio != nil:
		au := m.Audio
		md = state.Media{Kind: state.MediaAudio, FileID: au.FileID, UniqueID: au.FileUniqueID,
			Name: audioName(au), Duration: au.Duration, Mime: au.MimeType, Size: au.FileSize}
		setThumb(&md, au.Thumbnail)
	case m.VideoNote != nil:
		v := m.VideoNote
		md = state.Media{Kind: state.MediaVideoNote, FileID: v.FileID, UniqueID: v.FileUniqueID,
			Duration: v.Duration, Width: v.Length, Height: v.Length, Size: int64(v.FileSize)}
		setThumb(&md, v.Thumbnail)
	case m.Animation != nil:
		// An animation also comes with its document field set: it is
		// taken first.
		v := m.Animation
		md = state.Media{Kind: state.MediaAnimation, FileID: v.FileID, UniqueID: v.FileUniqueID,
			Duration: v.Duration, Name: v.FileName, Mime: v.MimeType, Size: v.FileSize,
			Width: v.Width, Height: v.Height}
		setThumb(&md, v.Thumbnail)
	case m.Video != nil:
		v := m.Video
		md = state.Media{Kind: state.MediaVideo, FileID: v.FileID, UniqueID: v.FileUniqueID,
			Duration: v.Duration, Name: v.FileName, Mime: v.MimeType, Size: v.FileSize,
			Width: v.Width, Height: v.Height}
		setThumb(&md, v.Thumbnail)
	case m.Document != nil:
		d := m.Document
		md = state.Media{Kind: state.MediaDocument, FileID: d.FileID, UniqueID: d.FileUniqueID,
			Name: d.FileName, Mime: d.MimeType, Size: d.FileSize}
		setThumb(&md, d.Thumbnail)
	default:
		return nil
	}
	if md.Size < 0 {
		md.Size = 0
	}
	return []state.Media{md}
}

// pickPhoto chooses among the sizes Telegram offers of one photo the
// largest whose file_size is at most max (a size without file_size
// counts as fitting). When none fits it is the smallest, so that the
// fetch reports the photo too large instead of the bot seeing nothing.
func pickPhoto(sizes []telego.PhotoSize, max int64) telego.PhotoSize {
	best, smallest := -1, 0
	for i, p := range sizes {
		if area(p) < area(sizes[smallest]) {
			smallest = i
		}
		if int64(p.FileSize) > max {
			continue
		}
		if best < 0 || area(p) > area(sizes[best]) ||
			(area(p) == area(sizes[best]) && p.FileSize > sizes[best].FileSize) {
			best = i
		}
	}
	if best < 0 {
		return sizes[smallest]
	}
	return sizes[best]
}

// area orders photo sizes; Telegram lists them by size, but does not
// promise to.
func area(p telego.PhotoSize) int64 {
	if p.Width > 0 && p.Height > 0 {
		return int64(p.Width) * int64(p.Height)
	}
	return int64(p.FileSize)
}

// setThumb records a preview image: for a video, a video note or an
// animated sticker it is the one still image that can be shown.
func setThumb(md *state.Media, t *telego.PhotoSize) {
	if t == nil || t.FileID == "" {
		return
	}
	md.Thumb, md.ThumbUnique = t.FileID, t.FileUniqueID
}

// stickerMime is the type of a sticker's file: WebP for a static one,
// WebM for a video sticker, gzipped Lottie for an animated one.
func stickerMime(s *telego.Sticker) string {
	switch {
	case s.IsVideo:
		return "video/webm"
	case s.IsAnimated:
		return "application/x-tgsticker"
	}
	return "image/webp"
}

// audioName is "performer – title" when Telegram knows them, else the
// file name.
func audioName(a *telego.Audio) string {
	name := strings.TrimSpace(strings.TrimSpace(a.Performer) + " – " + strings.TrimSpace(a.Title))
	name = strings.Trim(name, "– ")
	if name == "" {
		name = a.FileName
	}
	return name
}
