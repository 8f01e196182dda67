package telegram

import (
	"bytes"
	"image"
	"image/png"
	"reflect"
	"testing"

	"github.com/mymmrac/telego"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/state"
)

// pngOf is a real PNG image of w×h pixels.
func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestMediaIntake(t *testing.T) {
	srv := startServer(t)
	a := newAdapter(t, srv, nil)
	inbox := newInbox()
	run(t, a, inbox)

	cat := pngOf(t, 640, 480)
	file := []byte("0123456789")
	tests := []struct {
		name    string
		in      telegramtest.Incoming
		content string
		media   []state.Media
	}{
		{"photo with caption", telegramtest.Incoming{Media: "photo", Caption: "my cat", File: cat, FileID: "ph1"}, "my cat",
			[]state.Media{{Kind: state.MediaPhoto, FileID: "ph1", UniqueID: "u-ph1", Width: 640, Height: 480, Size: int64(len(cat))}}},
		{"photo over the size limit takes the small size",
			telegramtest.Incoming{Media: "photo", FileSize: DefaultMediaMaxBytes + 1, FileID: "ph2", Thumb: file}, "",
			[]state.Media{{Kind: state.MediaPhoto, FileID: "ph2-s", UniqueID: "u-ph2-s", Width: 90, Height: 68, Size: 10}}},
		{"static sticker", telegramtest.Incoming{Media: "sticker", Emoji: "😀", Set: "cats", File: file, FileID: "st1", Thumb: file}, "",
			[]state.Media{{Kind: state.MediaSticker, FileID: "st1", UniqueID: "u-st1", Emoji: "😀", Set: "cats", Width: 512, Height: 512,
				Size: 10, Mime: "image/webp", Thumb: "st1-thumb", ThumbUnique: "u-st1-thumb"}}},
		{"animated sticker", telegramtest.Incoming{Media: "sticker", Emoji: "🐈", Animated: true, File: file, FileID: "st2", Thumb: file}, "",
			[]state.Media{{Kind: state.MediaSticker, FileID: "st2", UniqueID: "u-st2", Emoji: "🐈", Animated: true, Width: 512, Height: 512,
				Size: 10, Mime: "application/x-tgsticker", Thumb: "st2-thumb", ThumbUnique: "u-st2-thumb"}}},
		{"voice", telegramtest.Incoming{Media: "voice", File: file, FileID: "v1", Duration: 7}, "",
			[]state.Media{{Kind: state.MediaVoice, FileID: "v1", UniqueID: "u-v1", Duration: 7, Mime: "audio/ogg", Size: 10}}},
		{"audio with performer and title", telegramtest.Incoming{Media: "audio", Performer: "Nina", Title: "Rain", FileName: "rain.mp3", File: file, FileID: "a1"}, "",
			[]state.Media{{Kind: state.MediaAudio, FileID: "a1", UniqueID: "u-a1", Name: "Nina – Rain", Duration: 60, Mime: "audio/mpeg", Size: 10}}},
		{"audio with a file name only", telegramtest.Incoming{Media: "audio", FileName: "song.mp3", File: file, FileID: "a2", Caption: "listen"}, "listen",
			[]state.Media{{Kind: state.MediaAudio, FileID: "a2", UniqueID: "u-a2", Name: "song.mp3", Duration: 60, Mime: "audio/mpeg", Size: 10}}},
		{"video note", telegramtest.Incoming{Media: "video_note", File: file, FileID: "vn1", Thumb: file}, "",
			[]state.Media{{Kind: state.MediaVideoNote, FileID: "vn1", UniqueID: "u-vn1", Duration: 4, Width: 240, Height: 240, Size: 10,
				Thumb: "vn1-thumb", ThumbUnique: "u-vn1-thumb"}}},
		{"video", telegramtest.Incoming{Media: "video", FileName: "clip.mp4", File: file, FileID: "w1", Thumb: file}, "",
			[]state.Media{{Kind: state.MediaVideo, FileID: "w1", UniqueID: "u-w1", Name: "clip.mp4", Duration: 5, Mime: "video/mp4", Size: 10,
				Width: 640, Height: 480, Thumb: "w1-thumb", ThumbUnique: "u-w1-thumb"}}},
		{"animation is not its document", telegramtest.Incoming{Media: "animation", FileName: "dance.mp4", File: file, FileID: "an1", Thumb: file}, "",
			[]state.Media{{Kind: state.MediaAnimation, FileID: "an1", UniqueID: "u-an1", Name: "dance.mp4", Duration: 2, Mime: "video/mp4", Size: 10,
				Width: 320, Height: 240, Thumb: "an1-thumb", ThumbUnique: "u-an1-thumb"}}},
		{"document", telegramtest.Incoming{Media: "document", FileName: "notes.pdf", Caption: "read this", File: file, FileID: "d1"}, "read this",
			[]state.Media{{Kind: state.MediaDocument, FileID: "d1", UniqueID: "u-d1", Name: "notes.pdf", Mime: "application/pdf", Size: 10}}},
		{"forwarded photo", telegramtest.Incoming{Media: "photo", ForwardedFrom: "Dan", File: cat, FileID: "ph3"}, "[forwarded from Dan]",
			[]state.Media{{Kind: state.MediaPhoto, FileID: "ph3", UniqueID: "u-ph3", Width: 640, Height: 480, Size: int64(len(cat))}}},
		{"forwarded text", telegramtest.Incoming{Text: "big news", ForwardedFrom: "Carol"}, "[forwarded from Carol] big news", nil},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.From = ann
			srv.Post(tt.in)
			got := inbox.wait(t, i+1)[i]
			if got.Content != tt.content {
				t.Errorf("content = %q, want %q", got.Content, tt.content)
			}
			if !reflect.DeepEqual(got.Media, tt.media) {
				t.Errorf("media =\n%+v\nwant\n%+v", got.Media, tt.media)
			}
		})
	}
}

// Placeholders stay in the text for what is not a file.
func TestNonFilePlaceholders(t *testing.T) {
	srv := startServer(t)
	a, ctx := connected(t, srv)
	inbox := newInbox()
	from := map[string]any{"id": 501, "is_bot": false, "first_name": "Ann"}
	chat := map[string]any{"id": 501, "type": "private", "first_name": "Ann"}
	tests := []struct {
		field string
		value any
		want  string
	}{
		{"location", map[string]any{"latitude": 52.5, "longitude": 13.4}, "[location]"},
		{"contact", map[string]any{"phone_number": "+100", "first_name": "Eve"}, "[contact Eve]"},
		{"dice", map[string]any{"emoji": "🎲", "value": 4}, "[dice 🎲 4]"},
	}
	for i, tt := range tests {
		srv.PostRaw(map[string]any{"message": map[string]any{"message_id": i + 1, "date": 1700000000,
			"chat": chat, "from": from, tt.field: tt.value}})
	}
	if _, err := a.Poll(ctx, inbox, 0); err != nil {
		t.Fatal(err)
	}
	msgs := inbox.messages()
	if len(msgs) != len(tests) {
		t.Fatalf("delivered %d messages, want %d", len(msgs), len(tests))
	}
	for i, tt := range tests {
		if msgs[i].Content != tt.want || msgs[i].Media != nil {
			t.Errorf("%s: content %q media %v, want %q and no media", tt.field, msgs[i].Content, msgs[i].Media, tt.want)
		}
	}
}

func TestPickPhoto(t *testing.T) {
	sizes := []telego.PhotoSize{
		{FileID: "s", Width: 90, Height: 60, FileSize: 1000},
		{FileID: "m", Width: 320, Height: 240, FileSize: 20000},
		{FileID: "l", Width: 1280, Height: 960, FileSize: 200000},
	}
	tests := []struct {
		max  int64
		want string
	}{
		{1 << 20, "l"},
		{200000, "l"},
		{199999, "m"},
		{20000, "m"},
		{5000, "s"},
		{10, "s"}, // none fits: the smallest, which the fetch refuses
	}
	for _, tt := range tests {
		if got := pickPhoto(sizes, tt.max).FileID; got != tt.want {
			t.Errorf("pickPhoto(max %d) = %s, want %s", tt.max, got, tt.want)
		}
	}
	// Telegram lists sizes smallest first, but the order is not relied on.
	rev := []telego.PhotoSize{sizes[2], sizes[0], sizes[1]}
	if got := pickPhoto(rev, 199999).FileID; got != "m" {
		t.Errorf("pickPhoto of reordered sizes = %s, want m", got)
	}
}
