package satori_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/adapters/satori"
	"github.com/airi-go/airi/adapters/satori/satoritest"
	"github.com/airi-go/airi/state"
)

func pngBytes(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 8, 8))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func newFetcher(t *testing.T, cfg satori.Config) *satori.Adapter {
	t.Helper()
	a, err := satori.New(cfg, nil, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func hostPortOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// An image without a caption arrives as a message with empty text and
// one attachment, which is fetched from the Satori server with its token.
func TestMediaArrivesAndIsFetched(t *testing.T) {
	srv := satoritest.NewServer(satoritest.Options{Token: "tok"})
	defer srv.Close()
	img := pngBytes(t)
	src := srv.AddFile(satoritest.File{Name: "cat.png", Data: img})
	in := newInbox()
	cfg := testConfig(srv)
	cfg.Token = "tok"
	a := start(t, cfg, &cursors{}, in)
	srv.PushMessage(satoritest.Message{ChannelID: "c1", UserID: "u1", Direct: true,
		Content: `<img src="` + src + `" title="cat"/>`})
	got := in.wait(t, 1)[0].msg
	if got.Content != "" || len(got.Media) != 1 {
		t.Fatalf("message = %+v, want empty text and one attachment", got)
	}
	md := got.Media[0]
	if md.Kind != state.MediaPhoto || md.FileID != src || md.UniqueID != src || md.Name != "cat" {
		t.Fatalf("attachment = %+v", md)
	}
	if srv.FileRequests("cat.png") != 0 {
		t.Fatal("the file was fetched when the message arrived")
	}
	data, typ, err := a.FetchMedia(ctxT(t), md, false, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, img) || typ != "image/png" {
		t.Errorf("fetched %d bytes of %q, want the %d bytes of the PNG", len(data), typ, len(img))
	}
	if auth := srv.FileAuth("cat.png"); len(auth) != 1 || auth[0] != "Bearer tok" {
		t.Errorf("Authorization sent to the Satori server = %q, want the token once", auth)
	}
}

func TestFetchMediaHosts(t *testing.T) {
	own := satoritest.NewServer(satoritest.Options{Token: "tok"})
	defer own.Close()
	other := satoritest.NewServer(satoritest.Options{})
	defer other.Close()
	img := pngBytes(t)
	other.AddFile(satoritest.File{Name: "x.png", Data: img, Type: "image/png"})
	own.AddFile(satoritest.File{Name: "poster.png", Data: img})
	otherHost := hostPortOf(t, other.URL())

	tests := []struct {
		name    string
		hosts   []string
		src     string
		foreign bool
	}{
		{"another server", nil, other.FileURL("x.png"), true},
		{"another server, listed with its port", []string{otherHost}, other.FileURL("x.png"), false},
		{"another server, listed by host", []string{"127.0.0.1"}, other.FileURL("x.png"), false},
		{"another port listed", []string{"127.0.0.1:1"}, other.FileURL("x.png"), true},
		{"file scheme", []string{"127.0.0.1"}, "file:///etc/passwd", true},
		{"ftp", []string{"127.0.0.1"}, "ftp://" + otherHost + "/x.png", true},
		{"data url", nil, "data:image/png;base64,iVBORw0KGgo=", true},
		{"relative", nil, "/files/x.png", true},
		{"user info", []string{"127.0.0.1"}, strings.Replace(other.FileURL("x.png"), "://", "://me:pw@", 1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := other.FileRequests("x.png")
			cfg := testConfig(own)
			cfg.Token, cfg.MediaHosts = "tok", tt.hosts
			a := newFetcher(t, cfg)
			data, _, err := a.FetchMedia(ctxT(t), state.Media{Kind: state.MediaPhoto, FileID: tt.src, UniqueID: tt.src}, false, 1<<20)
			requests := other.FileRequests("x.png") - before
			if tt.foreign {
				if !errors.Is(err, adapters.ErrForeignSource) {
					t.Fatalf("err = %v, want ErrForeignSource", err)
				}
				if requests != 0 {
					t.Fatalf("the foreign server got %d requests", requests)
				}
				return
			}
			if err != nil || !bytes.Equal(data, img) || requests != 1 {
				t.Fatalf("fetch = %d bytes, %v after %d requests", len(data), err, requests)
			}
			if auth := other.FileAuth("x.png"); auth[len(auth)-1] != "" {
				t.Errorf("the token went to another host: %q", auth)
			}
		})
	}
	t.Run("poster on the own server", func(t *testing.T) {
		cfg := testConfig(own)
		cfg.Token = "tok"
		a := newFetcher(t, cfg)
		md := state.Media{Kind: state.MediaVideo, FileID: other.FileURL("x.png"), Thumb: own.FileURL("poster.png")}
		data, typ, err := a.FetchMedia(ctxT(t), md, true, 1<<20)
		if err != nil || !bytes.Equal(data, img) || typ != "image/png" {
			t.Fatalf("poster = %d bytes of %q, %v", len(data), typ, err)
		}
	})
}

// A redirect from the Satori server to another host is not followed.
func TestFetchMediaRedirectElsewhere(t *testing.T) {
	other := satoritest.NewServer(satoritest.Options{})
	defer other.Close()
	other.AddFile(satoritest.File{Name: "x.png", Data: pngBytes(t)})
	own := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.FileURL("x.png"), http.StatusFound)
	}))
	defer own.Close()
	a := newFetcher(t, satori.Config{WSURL: "ws" + strings.TrimPrefix(own.URL, "http") + "/v1/events", Token: "tok", HTTPClient: own.Client()})
	_, _, err := a.FetchMedia(ctxT(t), state.Media{Kind: state.MediaPhoto, FileID: own.URL + "/r"}, false, 1<<20)
	if !errors.Is(err, adapters.ErrForeignSource) {
		t.Fatalf("err = %v, want ErrForeignSource", err)
	}
	if n := other.FileRequests("x.png"); n != 0 {
		t.Fatalf("the redirect was followed: %d requests", n)
	}
}

func TestFetchMediaTooLarge(t *testing.T) {
	srv := satoritest.NewServer(satoritest.Options{})
	defer srv.Close()
	big := make([]byte, 5000)
	srv.AddFile(satoritest.File{Name: "big.bin", Data: big})
	srv.AddFile(satoritest.File{Name: "stream.bin", Data: big, NoLength: true})
	a := newFetcher(t, testConfig(srv))
	tests := []struct {
		name     string
		md       state.Media
		want     adapters.TooLargeError
		requests int
	}{
		{"announced", state.Media{Kind: state.MediaDocument, FileID: srv.FileURL("big.bin"), Size: 5000}, adapters.TooLargeError{Size: 5000, Limit: 1000}, 0},
		{"content length", state.Media{Kind: state.MediaDocument, FileID: srv.FileURL("big.bin")}, adapters.TooLargeError{Size: 5000, Limit: 1000}, 1},
		{"streamed", state.Media{Kind: state.MediaDocument, FileID: srv.FileURL("stream.bin")}, adapters.TooLargeError{Limit: 1000}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := tt.md.FileID[strings.LastIndex(tt.md.FileID, "/")+1:]
			before := srv.FileRequests(name)
			_, _, err := a.FetchMedia(ctxT(t), tt.md, false, 1000)
			var tooLarge *adapters.TooLargeError
			if !errors.As(err, &tooLarge) || *tooLarge != tt.want {
				t.Fatalf("err = %v, want %+v", err, tt.want)
			}
			if n := srv.FileRequests(name) - before; n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
		})
	}
	// Within the limit, the streamed file is read whole.
	data, _, err := a.FetchMedia(ctxT(t), state.Media{Kind: state.MediaDocument, FileID: srv.FileURL("stream.bin")}, false, 5000)
	if err != nil || len(data) != 5000 {
		t.Fatalf("fetch at the limit = %d bytes, %v", len(data), err)
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}
