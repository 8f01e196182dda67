package inspector

import (
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/airi-go/airi/media"
	"github.com/airi-go/airi/state"
)

// hashPattern is a file's SHA-256, as the media notes and the image
// parts of a request name it.
var hashPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// image serves a stored image by hash, for the tick page. Only image
// types are served, and as attachments of the page's origin only (the
// admin server's token guards it like every page).
func (in *Inspector) image(w http.ResponseWriter, r *http.Request) {
	hash := r.PathValue("hash")
	if !hashPattern.MatchString(hash) {
		in.fail(w, r, http.StatusBadRequest, "an image is named by its SHA-256", nil)
		return
	}
	img, err := in.opts.Store.MediaImage(r.Context(), hash)
	if errors.Is(err, state.ErrNotFound) {
		in.fail(w, r, http.StatusNotFound, "no stored image with that hash", nil)
		return
	}
	if err != nil {
		in.fail(w, r, http.StatusInternalServerError, "read image", err)
		return
	}
	mime := img.Mime
	if !strings.HasPrefix(mime, "image/") || strings.Contains(mime, "svg") {
		in.fail(w, r, http.StatusUnsupportedMediaType, "the stored file is not an image the page shows", nil)
		return
	}
	h := w.Header()
	h.Set("Content-Type", mime)
	h.Set("Content-Length", strconv.Itoa(len(img.Data)))
	h.Set("Cache-Control", "private, max-age=86400")
	w.Write(img.Data)
}

// tickImages are the hashes of the images a tick looked at or sent, in
// order and once each: those its media notes name and the image parts of
// its request.
func tickImages(t state.Tick) []string {
	var out []string
	seen := map[string]bool{}
	add := func(h string) {
		if hashPattern.MatchString(h) && !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	for _, n := range t.Notes {
		if !strings.HasPrefix(n, "media: ") {
			continue
		}
		if _, h, ok := strings.Cut(n, media.HashPrefix); ok {
			add(h)
		}
	}
	for _, m := range t.Request {
		for _, img := range m.Images {
			add(img.Hash)
		}
	}
	return out
}
