package inspector

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/airi-go/airi/state"
)

func TestTickShowsItsImages(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	png := []byte("\x89PNG\r\n\x1a\n fake pixels")
	sum := sha256.Sum256(png)
	hash := hex.EncodeToString(sum[:])
	if err := f.store.PutMedia(ctx, state.MediaEntry{Key: "telegram:u1", Kind: state.MediaPhoto, Mime: "image/png", Hash: hash, Data: png}); err != nil {
		t.Fatal(err)
	}
	svg := []byte("<svg onload=alert(1)></svg>")
	sum = sha256.Sum256(svg)
	svgHash := hex.EncodeToString(sum[:])
	if err := f.store.PutMedia(ctx, state.MediaEntry{Key: "telegram:u2", Kind: state.MediaDocument, Mime: "image/svg+xml", Hash: svgHash, Data: svg}); err != nil {
		t.Fatal(err)
	}
	id, err := f.store.AddTick(ctx, state.Tick{ChannelID: "-100", Wake: 9, Trigger: "message", Now: base,
		Request: []state.ChatMessage{{Role: "system", Content: "sys"}, {Role: "user", Content: "Ann: [photo: a cat]"}},
		Notes:   []string{"media: photo described (85 tokens) sha256:" + hash, "media: document too_large"}, Result: "sent", OK: true})
	if err != nil {
		t.Fatal(err)
	}
	resp, body := f.get(t, fmt.Sprintf("/ticks/%d", id))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("tick page: %d", resp.StatusCode)
	}
	if !strings.Contains(body, `<img src="/media/`+hash+`"`) {
		t.Errorf("tick page does not show the image:\n%s", body)
	}
	if !strings.Contains(body, "media: photo described (85 tokens)") {
		t.Error("tick page does not show the media note")
	}
	resp, img := f.get(t, "/media/"+hash)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" || img != string(png) {
		t.Errorf("image: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), img)
	}
	if resp, _ := f.get(t, "/media/"+svgHash); resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("an SVG was served: %d", resp.StatusCode)
	}
	if resp, _ := f.get(t, "/media/../../etc"); resp.StatusCode == http.StatusOK {
		t.Error("a path that is no hash was served")
	}
	if resp, _ := f.get(t, "/media/"+strings.Repeat("0", 64)); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown image: %d", resp.StatusCode)
	}
}
