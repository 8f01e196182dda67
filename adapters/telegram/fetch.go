package telegram

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/mymmrac/telego"
	ta "github.com/mymmrac/telego/telegoapi"

	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/state"
)

// BotAPIFileLimit is the largest file the official Bot API server lets a
// bot download; getFile refuses larger ones ("file is too big").
const BotAPIFileLimit = 20 << 20

var _ adapters.MediaFetcher = (*Adapter)(nil)

// FetchMedia downloads the file of m, or its thumbnail when thumb is
// set, from the Bot API server: getFile for its path, then the file
// itself, reading at most max bytes (max <= 0 takes MediaMaxBytes). A
// file Telegram announces or serves larger than max, or refuses as too
// big for bots, is a *adapters.TooLargeError, and nothing past max is
// read. The type is m's announced one, else the server's, else sniffed
// from the bytes. Errors never hold the token.
func (a *Adapter) FetchMedia(ctx context.Context, m state.Media, thumb bool, max int64) ([]byte, string, error) {
	if max <= 0 {
		max = a.cfg.MediaMaxBytes
	}
	id, announced, typ := m.FileID, m.Size, m.Mime
	if thumb {
		// The thumbnail is an image of its own; the file's size and type
		// say nothing of it.
		id, announced, typ = m.Thumb, 0, ""
	}
	what := m.Kind
	if thumb {
		what += " thumbnail"
	}
	if id == "" {
		return nil, "", fmt.Errorf("telegram: fetch %s: no file id", what)
	}
	if announced > max {
		return nil, "", &adapters.TooLargeError{Size: announced, Limit: max}
	}
	f, err := a.getFile(ctx, id)
	if err != nil {
		var apiErr *ta.Error
		if errors.As(err, &apiErr) && apiErr.ErrorCode == http.StatusBadRequest &&
			strings.Contains(strings.ToLower(apiErr.Description), "file is too big") {
			return nil, "", &adapters.TooLargeError{Size: announced, Limit: min(max, BotAPIFileLimit)}
		}
		return nil, "", fmt.Errorf("telegram: fetch %s: %w", what, &redactedError{msg: a.call.redact(errText(err)), err: err})
	}
	if f.FileSize > max {
		return nil, "", &adapters.TooLargeError{Size: f.FileSize, Limit: max}
	}
	if f.FilePath == "" {
		return nil, "", fmt.Errorf("telegram: fetch %s: getFile gave no file path", what)
	}
	data, served, err := a.download(ctx, f.FilePath, max)
	if err != nil {
		var tooLarge *adapters.TooLargeError
		if errors.As(err, &tooLarge) {
			return nil, "", err
		}
		return nil, "", fmt.Errorf("telegram: fetch %s: %w", what, err)
	}
	if typ == "" {
		typ = served
	}
	if typ == "" {
		typ = http.DetectContentType(data)
	}
	return data, typ, nil
}

// getFile asks the Bot API where the file is, within HTTPTimeout.
func (a *Adapter) getFile(ctx context.Context, id string) (*telego.File, error) {
	cctx, cancel := context.WithTimeout(ctx, a.cfg.HTTPTimeout)
	defer cancel()
	return a.bot.GetFile(cctx, &telego.GetFileParams{FileID: id})
}

// download reads the file at path on the Bot API's file endpoint, at most
// max bytes, and returns it with the type the server gave it (empty when
// the server only says it is bytes). The URL holds the token: it is never
// part of an error.
func (a *Adapter) download(ctx context.Context, path string, max int64) ([]byte, string, error) {
	cctx, cancel := context.WithTimeout(ctx, a.cfg.HTTPTimeout)
	defer cancel()
	u := a.cfg.APIBaseURL + "/file/bot" + a.cfg.Token + "/" + strings.TrimPrefix(path, "/")
	req, err := http.NewRequestWithContext(cctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, "", fmt.Errorf("download: build request: %s", a.call.redact(err.Error()))
	}
	resp, err := a.call.client.Do(req)
	if err != nil {
		return nil, "", fmt.Errorf("download: %w", a.call.redactErr(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("download: HTTP %d", resp.StatusCode)
	}
	if resp.ContentLength > max {
		return nil, "", &adapters.TooLargeError{Size: resp.ContentLength, Limit: max}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, "", fmt.Errorf("download: read: %w", a.call.redactErr(err))
	}
	if int64(len(data)) > max {
		return nil, "", &adapters.TooLargeError{Limit: max}
	}
	typ, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if typ == "application/octet-stream" {
		typ = ""
	}
	return data, typ, nil
}
