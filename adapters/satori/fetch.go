package satori

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/state"
)

var _ adapters.MediaFetcher = (*Adapter)(nil)

// DefaultMediaMaxBytes is the size limit of a fetch that gives none.
const DefaultMediaMaxBytes = 10 << 20

// maxRedirects bounds the redirects a file fetch follows, each to an
// allowed host.
const maxRedirects = 3

// FetchMedia downloads the resource of m (its src), or of its thumbnail
// (a video's poster) when thumb is set, reading at most max bytes
// (max <= 0 takes DefaultMediaMaxBytes). Only
// http(s) addresses on the Satori server's own host or one of
// Config.MediaHosts are fetched, redirects included: any other address is
// adapters.ErrForeignSource, and nothing is requested, since a message
// could otherwise make the bot request any URL. The token goes only to
// the Satori server's own host. A resource announced or served larger
// than max is a *adapters.TooLargeError. The type is the one m records,
// else the server's, else sniffed from the bytes.
func (a *Adapter) FetchMedia(ctx context.Context, m state.Media, thumb bool, max int64) ([]byte, string, error) {
	src, announced, typ := m.FileID, m.Size, m.Mime
	if thumb {
		src, announced, typ = m.Thumb, 0, ""
	}
	if max <= 0 {
		max = DefaultMediaMaxBytes
	}
	u, err := url.Parse(src)
	if err != nil || !a.mediaAllowed(u) {
		return nil, "", fmt.Errorf("satori: fetch %s from %s: %w", m.Kind, hostOf(src), adapters.ErrForeignSource)
	}
	if announced > max {
		return nil, "", &adapters.TooLargeError{Size: announced, Limit: max}
	}
	cctx, cancel := context.WithTimeout(ctx, a.cfg.HTTPTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", fmt.Errorf("satori: fetch %s: %w", m.Kind, err)
	}
	a.authorize(req)
	client := *a.http
	client.CheckRedirect = func(next *http.Request, via []*http.Request) error {
		if len(via) > maxRedirects {
			return fmt.Errorf("more than %d redirects", maxRedirects)
		}
		if !a.mediaAllowed(next.URL) {
			return fmt.Errorf("redirect to %s: %w", next.URL.Host, adapters.ErrForeignSource)
		}
		next.Header.Del("Authorization")
		a.authorize(next)
		return nil
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, adapters.ErrForeignSource) {
			return nil, "", fmt.Errorf("satori: fetch %s: %w", m.Kind, adapters.ErrForeignSource)
		}
		return nil, "", fmt.Errorf("satori: fetch %s: %w", m.Kind, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("satori: fetch %s: HTTP %d", m.Kind, resp.StatusCode)
	}
	if resp.ContentLength > max {
		return nil, "", &adapters.TooLargeError{Size: resp.ContentLength, Limit: max}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, "", fmt.Errorf("satori: fetch %s: read: %w", m.Kind, err)
	}
	if int64(len(data)) > max {
		return nil, "", &adapters.TooLargeError{Limit: max}
	}
	if typ == "" {
		if t, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err == nil && t != "application/octet-stream" {
			typ = t
		}
	}
	if typ == "" {
		typ = http.DetectContentType(data)
	}
	return data, typ, nil
}

// authorize adds the token to a request for the Satori server's own host,
// and to no other.
func (a *Adapter) authorize(req *http.Request) {
	if a.cfg.Token != "" && a.ownHost(req.URL) {
		req.Header.Set("Authorization", "Bearer "+a.cfg.Token)
	}
}

// ownHost reports whether u is on the Satori API server's host and port.
func (a *Adapter) ownHost(u *url.URL) bool {
	api, err := url.Parse(a.cfg.APIBaseURL)
	return err == nil && hostPort(u) == hostPort(api)
}

// mediaAllowed reports whether files may be fetched from u: http(s), on
// the API server's own host or one of MediaHosts (a host alone allows any
// port of it).
func (a *Adapter) mediaAllowed(u *url.URL) bool {
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return false
	}
	if a.ownHost(u) {
		return true
	}
	hp := hostPort(u)
	host := strings.ToLower(u.Hostname())
	for _, h := range a.cfg.MediaHosts {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(h); err == nil {
			if h == hp {
				return true
			}
			continue
		}
		if strings.Trim(h, "[]") == host {
			return true
		}
	}
	return false
}

// hostPort is u's host and port, lower case, with the scheme's default
// port written out.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https", "wss":
			port = "443"
		default:
			port = "80"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// hostOf names where src points, for an error, without its path or
// query (which may carry a signature).
func hostOf(src string) string {
	if u, err := url.Parse(src); err == nil && u.Host != "" {
		return u.Host
	}
	scheme, _, _ := strings.Cut(src, ":")
	if len(scheme) > 16 {
		scheme = scheme[:16]
	}
	return fmt.Sprintf("%q", scheme+":")
}
