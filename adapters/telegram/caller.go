package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"

	ta "github.com/mymmrac/telego/telegoapi"
)

// maxResponseBytes bounds a Bot API answer (a getUpdates batch of 100
// updates stays far below it).
const maxResponseBytes = 32 << 20

// transportError is a failed Bot API call that got no Bot API answer.
// Sent reports that the request was fully written before the failure, so
// the server may have acted on it.
type transportError struct {
	Sent bool
	err  error
}

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// caller is telego's transport: plain net/http with errors that never
// carry the token (it is part of the URL path) and that tell whether the
// request went out.
type caller struct {
	client *http.Client
	token  string
}

var _ ta.Caller = (*caller)(nil)

// Call posts one Bot API request.
func (c *caller) Call(ctx context.Context, u string, data *ta.RequestData) (*ta.Response, error) {
	var body io.Reader
	switch {
	case data.BodyRaw != nil:
		body = bytes.NewReader(data.BodyRaw)
	case data.BodyStream != nil:
		body = data.BodyStream
	default:
		return nil, errors.New("telegram request without body")
	}
	var wrote atomic.Bool
	trace := &httptrace.ClientTrace{WroteRequest: func(info httptrace.WroteRequestInfo) {
		if info.Err == nil {
			wrote.Store(true)
		}
	}}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodPost, u, body)
	if err != nil {
		return nil, fmt.Errorf("build request %s: %s", c.redact(u), c.redact(err.Error()))
	}
	req.Header.Set(ta.ContentTypeHeader, data.ContentType)
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, &transportError{Sent: wrote.Load(), err: c.redactErr(err)}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return nil, &transportError{Sent: true, err: fmt.Errorf("read response of %s: %w", c.method(u), c.redactErr(err))}
	}
	var out ta.Response
	if err := json.Unmarshal(raw, &out); err != nil || (!out.Ok && out.Error == nil) {
		// Not a Bot API answer: a proxy's error page, a wrong base URL.
		if resp.StatusCode >= 500 {
			return nil, &transportError{Sent: true, err: fmt.Errorf("%s: HTTP %d from %s", c.method(u), resp.StatusCode, c.redact(u))}
		}
		return nil, fmt.Errorf("%s: HTTP %d from %s is not a Bot API answer", c.method(u), resp.StatusCode, c.redact(u))
	}
	return &out, nil
}

// method returns the Bot API method name at the end of u.
func (c *caller) method(u string) string {
	if i := strings.LastIndexByte(u, '/'); i >= 0 {
		return u[i+1:]
	}
	return u
}

// redact removes the token from s.
func (c *caller) redact(s string) string {
	if c.token == "" {
		return s
	}
	s = strings.ReplaceAll(s, c.token, "<token>")
	// url.Error may print the path escaped.
	if esc := url.PathEscape(c.token); esc != c.token {
		s = strings.ReplaceAll(s, esc, "<token>")
	}
	return s
}

// redactErr rewrites a url.Error without its URL (which holds the token), keeping
// the underlying error reachable for errors.Is (context cancellation).
func (c *caller) redactErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return &redactedError{msg: fmt.Sprintf("%s: %s", c.method(ue.URL), c.redact(ue.Err.Error())), err: ue.Err}
	}
	if msg := c.redact(err.Error()); msg != err.Error() {
		return &redactedError{msg: msg, err: errors.Unwrap(err)}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
