package telegramtest

import (
	"bytes"
	"fmt"
	"image"
	_ "image/gif" // DecodeConfig reads the sizes of GIF photos too
	_ "image/jpeg"
	"image/png"
	"mime"
	"path"
	"strconv"
)

// file is one file the server announced and can serve.
type file struct {
	id, unique string
	path       string // file_path under /file/bot<token>/
	size       int64  // the size announced
	data       []byte // nil: size zero bytes are served
	getFile    int    // getFile calls for it
	downloads  int
}

// attach fills m's media field for in and registers its files; callers
// hold mu.
func (s *Server) attach(m *Message, in Incoming) {
	id := in.FileID
	if id == "" {
		id = fmt.Sprintf("%s-%d-%d", in.Media, m.Chat.ID, m.MessageID)
	}
	unique := in.UniqueID
	if unique == "" {
		unique = "u-" + id
	}
	data := in.File
	if data == nil && in.FileSize == 0 {
		data = defaultFile(in.Media)
	}
	size := in.FileSize
	if size == 0 {
		size = int64(len(data))
	}
	mimeType := in.Mime
	if mimeType == "" {
		mimeType = defaultMime(in.Media, in.FileName)
	}
	main := s.addFile(id, unique, in.Media, mimeType, size, data)
	duration := in.Duration
	if duration == 0 {
		duration = map[string]int{"voice": 3, "audio": 60, "video": 5, "video_note": 4, "animation": 2}[in.Media]
	}
	thumb := func() map[string]any {
		data := in.Thumb
		if data == nil {
			data = tinyPNG(90, 90)
		}
		t := s.addFile(id+"-thumb", unique+"-thumb", "thumbnails", "image/png", int64(len(data)), data)
		return t.photoSize(90, 90)
	}
	switch in.Media {
	case "photo":
		w, h := 1280, 960
		if in.File != nil {
			if c, _, err := image.DecodeConfig(bytes.NewReader(in.File)); err == nil {
				w, h = c.Width, c.Height
			}
		} else if in.FileSize == 0 {
			w, h = 320, 240
		}
		// Telegram offers several sizes of a photo, smallest first.
		small := tinyPNG(90, 68)
		if in.Thumb != nil {
			small = in.Thumb
		}
		s1 := s.addFile(id+"-s", unique+"-s", "photo", "image/png", int64(len(small)), small)
		m.Photo = []map[string]any{s1.photoSize(90, 68), main.photoSize(w, h)}
	case "sticker":
		st := map[string]any{"file_id": id, "file_unique_id": unique, "type": "regular", "width": 512, "height": 512,
			"is_animated": in.Animated, "is_video": false, "emoji": in.Emoji, "file_size": size, "thumbnail": thumb()}
		if in.Set != "" {
			st["set_name"] = in.Set
		}
		m.Sticker = st
	case "voice":
		m.Voice = map[string]any{"file_id": id, "file_unique_id": unique, "duration": duration, "mime_type": mimeType, "file_size": size}
	case "document":
		d := map[string]any{"file_id": id, "file_unique_id": unique, "file_name": in.FileName, "mime_type": mimeType, "file_size": size}
		if in.Thumb != nil {
			d["thumbnail"] = thumb()
		}
		m.Document = d
	case "video":
		m.Video = map[string]any{"file_id": id, "file_unique_id": unique, "width": 640, "height": 480, "duration": duration,
			"file_name": in.FileName, "mime_type": mimeType, "file_size": size, "thumbnail": thumb()}
	case "animation":
		a := map[string]any{"file_id": id, "file_unique_id": unique, "width": 320, "height": 240, "duration": duration,
			"file_name": in.FileName, "mime_type": mimeType, "file_size": size, "thumbnail": thumb()}
		// Telegram sends an animation as a document too, for clients
		// that do not know animations.
		m.Animation = a
		m.Document = map[string]any{"file_id": id, "file_unique_id": unique, "file_name": in.FileName, "mime_type": mimeType, "file_size": size}
	case "video_note":
		m.VideoNote = map[string]any{"file_id": id, "file_unique_id": unique, "length": 240, "duration": duration,
			"file_size": size, "thumbnail": thumb()}
	case "audio":
		a := map[string]any{"file_id": id, "file_unique_id": unique, "duration": duration, "file_name": in.FileName,
			"mime_type": mimeType, "file_size": size}
		if in.Performer != "" {
			a["performer"] = in.Performer
		}
		if in.Title != "" {
			a["title"] = in.Title
		}
		m.Audio = a
	}
}

// addFile registers a file under id (replacing one of the same id) and
// returns it; callers hold mu.
func (s *Server) addFile(id, unique, kind, mimeType string, size int64, data []byte) *file {
	dir := map[string]string{"photo": "photos", "sticker": "stickers", "voice": "voice", "audio": "music",
		"video": "videos", "video_note": "video_notes", "animation": "animations", "document": "documents"}[kind]
	if dir == "" {
		dir = kind
	}
	ext := ".bin"
	if exts, _ := mime.ExtensionsByType(mimeType); len(exts) > 0 {
		ext = exts[0]
	}
	s.fileSeq++
	f := &file{id: id, unique: unique, size: size, data: data,
		path: path.Join(dir, "file_"+strconv.Itoa(s.fileSeq)+ext)}
	if old := s.files[id]; old != nil {
		// The same file sent again keeps its counts.
		f.getFile, f.downloads = old.getFile, old.downloads
		delete(s.paths, old.path)
	}
	s.files[id] = f
	s.paths[f.path] = f
	return f
}

func (f *file) photoSize(w, h int) map[string]any {
	return map[string]any{"file_id": f.id, "file_unique_id": f.unique, "width": w, "height": h, "file_size": f.size}
}

// defaultMime is the type Telegram reports for a kind of file.
func defaultMime(kind, name string) string {
	switch kind {
	case "voice":
		return "audio/ogg"
	case "audio":
		return "audio/mpeg"
	case "video", "animation", "video_note":
		return "video/mp4"
	case "sticker":
		return "image/webp"
	case "photo":
		return "image/jpeg"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// defaultFile is what a message carries when the test gave no bytes: a
// small real image for a photo, a few bytes otherwise.
func defaultFile(kind string) []byte {
	if kind == "photo" {
		return tinyPNG(320, 240)
	}
	return []byte("fake " + kind + " file")
}

// tinyPNG is a plain grey PNG image of w×h pixels.
func tinyPNG(w, h int) []byte {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 0x80
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img) // writing to memory does not fail
	return b.Bytes()
}
