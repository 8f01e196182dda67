package openaitest

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Image is an image part of a request message.
type Image struct {
	// URL is the part's image_url.url as sent (a data URL holds the
	// bytes; the test reads them from Data).
	URL    string `json:"url"`
	Mime   string `json:"mime,omitempty"`
	Data   []byte `json:"-"`
	Detail string `json:"detail,omitempty"`
}

// Images returns every image part of the request, in order.
func (r Request) Images() []Image {
	var out []Image
	for _, m := range r.Messages {
		out = append(out, m.Images...)
	}
	return out
}

// contentImages reads the image parts of a content given as parts. A part
// of type image_url must carry an http(s) URL or a base64 data URL of an
// image, as the providers require.
func contentImages(raw json.RawMessage) ([]Image, error) {
	if len(raw) == 0 || raw[0] != '[' {
		return nil, nil
	}
	var parts []struct {
		Type     string `json:"type"`
		ImageURL *struct {
			URL    string `json:"url"`
			Detail string `json:"detail"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, err
	}
	var out []Image
	for i, p := range parts {
		switch p.Type {
		case "text":
		case "image_url":
			if p.ImageURL == nil || p.ImageURL.URL == "" {
				return nil, fmt.Errorf("content[%d]: image_url part without a url", i)
			}
			img, err := decodeImageURL(p.ImageURL.URL)
			if err != nil {
				return nil, fmt.Errorf("content[%d]: %w", i, err)
			}
			img.Detail = p.ImageURL.Detail
			out = append(out, img)
		default:
			return nil, fmt.Errorf("content[%d]: unknown part type %q", i, p.Type)
		}
	}
	return out, nil
}

// decodeImageURL checks an image part's URL and decodes a data URL.
func decodeImageURL(u string) (Image, error) {
	img := Image{URL: u}
	if strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") {
		return img, nil
	}
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return img, errors.New("invalid image URL: expected a base64-encoded data URL or an http(s) URL")
	}
	meta, data, ok := strings.Cut(rest, ",")
	mime, isBase64 := strings.CutSuffix(meta, ";base64")
	if !ok || !isBase64 || !strings.HasPrefix(mime, "image/") {
		return img, fmt.Errorf("invalid image data URL: want data:image/...;base64,..., got %.40q", u)
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return img, fmt.Errorf("invalid image data: %v", err)
	}
	img.Mime, img.Data = mime, b
	return img, nil
}

// Transcription is one POST /audio/transcriptions the server received.
type Transcription struct {
	Model    string
	FileName string
	Audio    []byte
	Header   http.Header
}

// TranscribeFunc answers a transcription with its text, or with a Reply
// carrying a Status to fail it.
type TranscribeFunc func(t Transcription) (string, Reply)

// WithTranscriber serves POST /audio/transcriptions with fn; without it
// every transcription is answered "transcript of <file name>".
func WithTranscriber(fn TranscribeFunc) Option { return func(h *Handler) { h.transcribe = fn } }

// Transcriptions returns the transcriptions received so far.
func (h *Handler) Transcriptions() []Transcription {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Transcription(nil), h.transcriptions...)
}

// serveTranscription answers the multipart form of OpenAI's
// transcriptions endpoint (fields file and model) with {"text": ...}.
func (h *Handler) serveTranscription(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed", "use POST")
		return
	}
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "could not parse the multipart form: "+err.Error())
		return
	}
	f, fh, err := r.FormFile("file")
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "file is required")
		return
	}
	audio, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "could not read the file")
		return
	}
	t := Transcription{Model: r.FormValue("model"), FileName: fh.Filename, Audio: audio, Header: r.Header.Clone()}
	h.mu.Lock()
	h.transcriptions = append(h.transcriptions, t)
	h.mu.Unlock()
	if h.apiKey != "" && strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") != h.apiKey {
		writeError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.")
		return
	}
	if t.Model == "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "model is required")
		return
	}
	text := "transcript of " + t.FileName
	if h.transcribe != nil {
		var reply Reply
		if text, reply = h.transcribe(t); reply.Status != 0 {
			writeError(w, reply.Status, errorType(reply.Status), "", http.StatusText(reply.Status))
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]string{"text": text})
}
