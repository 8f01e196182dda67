package telegram

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/state"
)

// fileTransport changes the answers of file downloads: without their
// length (so only the read limit stops a large one), or failing.
type fileTransport struct {
	noLength bool
	fail     error
}

func (ft fileTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if !strings.HasPrefix(r.URL.Path, "/file/") {
		return http.DefaultTransport.RoundTrip(r)
	}
	if ft.fail != nil {
		return nil, ft.fail
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && ft.noLength {
		resp.ContentLength = -1
	}
	return resp, err
}

// mediaOf posts in and returns the attachment the adapter took from it.
func mediaOf(t *testing.T, srv *telegramtest.Server, a *Adapter, in telegramtest.Incoming) state.Media {
	t.Helper()
	inbox := newInbox()
	in.From = ann
	srv.Post(in)
	if _, err := a.Poll(ctxT(t), inbox, 0); err != nil {
		t.Fatal(err)
	}
	msgs := inbox.messages()
	if len(msgs) != 1 || len(msgs[0].Media) != 1 {
		t.Fatalf("delivered %+v, want one message with one attachment", msgs)
	}
	return msgs[0].Media[0]
}

func fetchAdapter(t *testing.T, srv *telegramtest.Server, rt http.RoundTripper) *Adapter {
	t.Helper()
	cfg := Config{Token: srv.Token(), APIBaseURL: srv.URL(), PollTimeout: time.Second, HTTPTimeout: 5 * time.Second}
	if rt != nil {
		cfg.HTTPClient = &http.Client{Transport: rt}
	}
	a, err := New(cfg, &memCursors{}, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Connect(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	return a
}

func TestFetchMedia(t *testing.T) {
	cat := pngOf(t, 640, 480)
	thumb := pngOf(t, 90, 90)
	tests := []struct {
		name  string
		in    telegramtest.Incoming
		thumb bool
		data  []byte
		typ   string
	}{
		{"photo, type sniffed", telegramtest.Incoming{Media: "photo", File: cat, FileID: "ph"}, false, cat, "image/png"},
		{"voice, type announced", telegramtest.Incoming{Media: "voice", File: []byte("OggS voice"), FileID: "v"}, false, []byte("OggS voice"), "audio/ogg"},
		{"video note thumbnail", telegramtest.Incoming{Media: "video_note", File: []byte("mp4"), Thumb: thumb, FileID: "vn"}, true, thumb, "image/png"},
		{"animated sticker thumbnail", telegramtest.Incoming{Media: "sticker", Animated: true, File: []byte("tgs"), Thumb: thumb, FileID: "st"}, true, thumb, "image/png"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t)
			a := fetchAdapter(t, srv, nil)
			md := mediaOf(t, srv, a, tt.in)
			data, typ, err := a.FetchMedia(ctxT(t), md, tt.thumb, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, tt.data) || typ != tt.typ {
				t.Errorf("fetched %d bytes of %q, want %d bytes of %q", len(data), typ, len(tt.data), tt.typ)
			}
			id := md.FileID
			if tt.thumb {
				id = md.Thumb
				if n := srv.Downloads(md.FileID); n != 0 {
					t.Errorf("the file itself was downloaded %d times for its thumbnail", n)
				}
			}
			if g, d := srv.GetFileCalls(id), srv.Downloads(id); g != 1 || d != 1 {
				t.Errorf("getFile %d, downloads %d; want 1 and 1", g, d)
			}
		})
	}
}

func TestFetchMediaTooLarge(t *testing.T) {
	tests := []struct {
		name string
		in   telegramtest.Incoming
		// forget drops the size the message announced, so that only
		// getFile or the download tells.
		forget   bool
		rt       http.RoundTripper
		max      int64
		want     adapters.TooLargeError
		getFiles int
	}{
		{"over Telegram's 20 MB", telegramtest.Incoming{Media: "document", FileName: "big.zip", FileSize: 25 << 20, FileID: "big"},
			false, nil, 50 << 20, adapters.TooLargeError{Size: 25 << 20, Limit: BotAPIFileLimit}, 1},
		{"announced over max", telegramtest.Incoming{Media: "document", FileName: "a.bin", FileSize: 5000, FileID: "ann"},
			false, nil, 1000, adapters.TooLargeError{Size: 5000, Limit: 1000}, 0},
		{"getFile size over max", telegramtest.Incoming{Media: "document", FileName: "b.bin", FileSize: 5000, FileID: "gf"},
			true, nil, 1000, adapters.TooLargeError{Size: 5000, Limit: 1000}, 1},
		{"served length over max", telegramtest.Incoming{Media: "document", FileName: "c.bin", FileSize: 10, File: make([]byte, 5000), FileID: "cl"},
			false, nil, 1000, adapters.TooLargeError{Size: 5000, Limit: 1000}, 1},
		{"served bytes over max, no length", telegramtest.Incoming{Media: "document", FileName: "d.bin", FileSize: 10, File: make([]byte, 5000), FileID: "nl"},
			false, fileTransport{noLength: true}, 1000, adapters.TooLargeError{Limit: 1000}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t)
			a := fetchAdapter(t, srv, tt.rt)
			md := mediaOf(t, srv, a, tt.in)
			if tt.forget {
				md.Size = 0
			}
			data, _, err := a.FetchMedia(ctxT(t), md, false, tt.max)
			var tooLarge *adapters.TooLargeError
			if !errors.As(err, &tooLarge) {
				t.Fatalf("err = %v (%d bytes), want a TooLargeError", err, len(data))
			}
			if *tooLarge != tt.want {
				t.Errorf("err = %+v, want %+v", *tooLarge, tt.want)
			}
			if n := srv.GetFileCalls(md.FileID); n != tt.getFiles {
				t.Errorf("getFile called %d times, want %d", n, tt.getFiles)
			}
		})
	}
}

func TestFetchMediaErrorsHideToken(t *testing.T) {
	tests := []struct {
		name  string
		rt    http.RoundTripper
		setup func(srv *telegramtest.Server)
	}{
		{"download fails", fileTransport{fail: errors.New("connection reset")}, nil},
		{"getFile connection dropped", nil, func(srv *telegramtest.Server) { srv.Fail("getFile", telegramtest.Fault{Drop: true}) }},
		{"getFile refused", nil, func(srv *telegramtest.Server) {
			srv.Fail("getFile", telegramtest.Fault{Code: http.StatusBadRequest, Description: "Bad Request: invalid file_id"})
		}},
		{"server gone", nil, func(srv *telegramtest.Server) { srv.Close() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t)
			a := fetchAdapter(t, srv, tt.rt)
			md := mediaOf(t, srv, a, telegramtest.Incoming{Media: "voice", File: []byte("ogg")})
			if tt.setup != nil {
				tt.setup(srv)
			}
			_, _, err := a.FetchMedia(ctxT(t), md, false, 1<<20)
			if err == nil {
				t.Fatal("fetch succeeded")
			}
			t.Log(err)
			_, secret, _ := strings.Cut(srv.Token(), ":")
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error shows the token: %v", err)
			}
			var tooLarge *adapters.TooLargeError
			if errors.As(err, &tooLarge) {
				t.Errorf("err = %v, want a failure that is not about size", err)
			}
		})
	}
}

func TestFetchMediaCanceled(t *testing.T) {
	srv := startServer(t)
	a := fetchAdapter(t, srv, nil)
	md := mediaOf(t, srv, a, telegramtest.Incoming{Media: "voice", File: []byte("ogg")})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := a.FetchMedia(ctx, md, false, 1<<20); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
