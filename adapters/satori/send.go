package satori

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/airi-go/airi/internal/backoff"
	"github.com/airi-go/airi/state"
)

// APIError is a refusal by the Satori server: a status other than 2xx.
// Body is the server's text (plain text or JSON), cut to a readable length.
type APIError struct {
	Method string
	Status int
	Body   string
}

// Error reads like "message.create: http 403: bot not found".
func (e *APIError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("%s: http %d", e.Method, e.Status)
	}
	return fmt.Sprintf("%s: http %d: %s", e.Method, e.Status, e.Body)
}

// maxErrorBody bounds the server text kept in an APIError.
const maxErrorBody = 300

// Send posts out to message.create and returns the created message id.
// A send that surely did not reach the server (5xx, connection refused)
// is retried with backoff; one that may have (a timeout or a reset after
// the request went out) wraps state.ErrOutcomeUnknown and is never
// retried; a 4xx is a failed send carrying the server's text.
//
// A process that does not hold the event stream (another replica of the
// bot) sends with the logins the holder stored.
func (a *Adapter) Send(ctx context.Context, out state.Outgoing) (string, error) {
	if err := a.loadLogins(ctx); err != nil {
		return "", fmt.Errorf("send to %s: %w", out.ChannelID, err)
	}
	l, native, err := a.route(out.ChannelID)
	if err != nil {
		return "", fmt.Errorf("send to %s: %w", out.ChannelID, err)
	}
	body, err := json.Marshal(map[string]string{
		"channel_id": native,
		"content":    EncodeOutgoing(out.Content, platformReplyTo(out.ReplyTo)),
	})
	if err != nil {
		return "", fmt.Errorf("send to %s: encode: %w", out.ChannelID, err)
	}
	for attempt := 1; ; attempt++ {
		respBody, err := a.call(ctx, "message.create", l, body)
		if err == nil {
			id, perr := parseCreated(respBody)
			if perr != nil {
				// The server accepted the message; only its id is lost.
				a.log.Warn("message sent but its id is unreadable", zap.String("channel", out.ChannelID), zap.Error(perr))
			}
			return id, nil
		}
		if !retryable(err) || attempt >= a.cfg.SendAttempts {
			return "", fmt.Errorf("send to %s: %w", out.ChannelID, err)
		}
		wait := a.retry().Delay(attempt, 0)
		a.log.Warn("send failed, retrying", zap.String("channel", out.ChannelID), zap.Int("attempt", attempt), zap.Duration("in", wait), zap.Error(err))
		if serr := backoff.Sleep(ctx, wait); serr != nil {
			return "", fmt.Errorf("send to %s: %w (last error: %v)", out.ChannelID, serr, err)
		}
	}
}

// errNotSent marks a request that never left this process.
var errNotSent = errors.New("request not sent")

func retryable(err error) bool {
	if errors.Is(err, state.ErrOutcomeUnknown) {
		return false
	}
	if errors.Is(err, errNotSent) {
		return true
	}
	var ae *APIError
	return errors.As(err, &ae) && ae.Status >= 500
}

// call posts one API request with the identity headers of both protocol
// revisions. It returns the body of a 2xx answer.
func (a *Adapter) call(ctx context.Context, method string, l login, body []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, a.cfg.HTTPTimeout)
	defer cancel()
	// wrote is set once request bytes may have reached the server: from
	// then on a failure leaves the outcome unknown.
	var wrote atomic.Bool
	trace := &httptrace.ClientTrace{
		WroteHeaderField: func(string, []string) { wrote.Store(true) },
		WroteHeaders:     func() { wrote.Store(true) },
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodPost,
		a.cfg.APIBaseURL+"/"+method, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if a.cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+a.cfg.Token)
	}
	req.Header.Set("Satori-Platform", l.Platform)
	req.Header.Set("Satori-User-ID", l.SelfID)
	req.Header.Set("X-Platform", l.Platform)
	req.Header.Set("X-Self-ID", l.SelfID)

	resp, err := a.http.Do(req)
	if err != nil {
		if !wrote.Load() {
			return nil, fmt.Errorf("%s: %w: %w", method, errNotSent, err)
		}
		return nil, fmt.Errorf("%s: %w: %w", method, state.ErrOutcomeUnknown, err)
	}
	defer resp.Body.Close()
	data, rerr := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return nil, &APIError{Method: method, Status: resp.StatusCode, Body: errorText(data)}
	}
	if rerr != nil {
		a.log.Warn("reading the answer failed after the server accepted the request", zap.String("method", method), zap.Error(rerr))
	}
	return data, nil
}

// errorText makes a server's error body readable: the message of a JSON
// error object, or the plain text, on one line and cut short.
func errorText(b []byte) string {
	var obj struct {
		Message string `json:"message"`
		Error   any    `json:"error"`
	}
	s := strings.TrimSpace(string(b))
	if json.Unmarshal(b, &obj) == nil {
		switch {
		case obj.Message != "":
			s = obj.Message
		case obj.Error != nil:
			if es, ok := obj.Error.(string); ok {
				s = es
			}
		}
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxErrorBody {
		cut := maxErrorBody
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// platformReplyTo drops a reply target the platform does not know: the id
// made here for a message that came without one cannot be quoted.
func platformReplyTo(id string) string {
	if strings.HasPrefix(id, localIDPrefix) {
		return ""
	}
	return id
}
