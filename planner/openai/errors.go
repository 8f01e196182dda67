package openai

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/airi-go/airi/planner"
)

// ErrEmptyAnswer is wrapped by the error of a call whose answer held no
// text once <think> blocks were set aside. It is not retried: the scheduler
// shows it to the model on the next tick.
var ErrEmptyAnswer = errors.New("empty model answer")

// ErrMalformed is wrapped by the error of a call whose response was not
// Chat Completions JSON (a broken body, an HTML page, no choices).
var ErrMalformed = errors.New("malformed model response")

// StatusError is a non-2xx answer of the endpoint. It wraps
// planner.ErrContextLength when the endpoint says the request is longer
// than the model's context, else planner.ErrPermanent for the codes that
// retrying cannot fix (400, 401, 402, 403, 404, 405); its message names the
// setting to check. Body is the response body, cut short and with the API
// key removed.
type StatusError struct {
	Code int
	// RetryAfter is what the endpoint asked to wait (Retry-After or
	// retry-after-ms), zero when it did not say.
	RetryAfter time.Duration
	Body       string
	// hint names the setting to check; set by the client, which knows the
	// configured model and base URL.
	hint string
}

// Error describes the status, the setting to check and the provider's
// message.
func (e *StatusError) Error() string {
	var b strings.Builder
	if e.ContextLength() {
		// In words too, so that a replayed session rebuilds the same error.
		b.WriteString(planner.ErrContextLength.Error())
		b.WriteString(": ")
	} else if permanentStatus(e.Code) {
		// Said in words too, so that a recorded error text still reads
		// as permanent when a session is replayed.
		b.WriteString(planner.ErrPermanent.Error())
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "model endpoint answered %d %s", e.Code, http.StatusText(e.Code))
	if e.hint != "" {
		b.WriteString(" (")
		b.WriteString(e.hint)
		b.WriteString(")")
	}
	if msg := providerMessage(e.Body); msg != "" {
		b.WriteString(": ")
		b.WriteString(msg)
	}
	return b.String()
}

// Unwrap reports planner.ErrContextLength for a request too long for the
// model, planner.ErrPermanent for the other codes that retrying cannot fix.
func (e *StatusError) Unwrap() error {
	if e.ContextLength() {
		return planner.ErrContextLength
	}
	if permanentStatus(e.Code) {
		return planner.ErrPermanent
	}
	return nil
}

// ContextLength reports whether the endpoint refused the request as longer
// than the model's context window.
func (e *StatusError) ContextLength() bool {
	return contextLengthError(e.Code, e.Body)
}

// contextPhrases are how servers word a request that does not fit the
// model's context, lower case: OpenAI and DeepSeek ("This model's maximum
// context length is 8192 tokens", code context_length_exceeded),
// OpenRouter ("maximum context length"), vLLM ("maximum context length",
// or "longer than the maximum model length"), llama.cpp ("the request
// exceeds the available context size", type exceed_context_size_error),
// and proxies that pass on other providers' words ("prompt is too long",
// "context window").
var contextPhrases = []string{
	"context_length_exceeded",
	"maximum context length",
	"context length exceeded",
	"exceeds the context length",
	"maximum model length",
	"exceed_context_size",
	"exceeds the available context size",
	"context window",
	"prompt is too long",
}

// contextLengthError reports whether a status and body say the request is
// too long for the model. Only 400 and 413 count: a 5xx that mentions the
// context is retried like any other.
func contextLengthError(code int, body string) bool {
	if code != http.StatusBadRequest && code != http.StatusRequestEntityTooLarge {
		return false
	}
	lower := strings.ToLower(body)
	for _, p := range contextPhrases {
		if strings.Contains(lower, p) {
			return true
		}
	}
	return false
}

// Temporary reports whether the call may succeed when tried again.
func (e *StatusError) Temporary() bool { return retryableStatus(e.Code) }

func permanentStatus(code int) bool {
	switch code {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusPaymentRequired,
		http.StatusForbidden, http.StatusNotFound, http.StatusMethodNotAllowed:
		return true
	}
	return false
}

func retryableStatus(code int) bool {
	switch {
	case code == http.StatusRequestTimeout, code == http.StatusConflict,
		code == http.StatusTooEarly, code == http.StatusTooManyRequests:
		return true
	case code >= 500:
		return true
	}
	return false
}

// statusHint names the setting a user should look at for a status code.
func statusHint(code int, model, baseURL string, keySet bool) string {
	switch code {
	case http.StatusUnauthorized:
		if !keySet {
			return "LLM_API_KEY is not set and the endpoint needs one"
		}
		return "check LLM_API_KEY"
	case http.StatusPaymentRequired:
		return "check the balance or plan of the account behind LLM_API_KEY"
	case http.StatusForbidden:
		return fmt.Sprintf("check that LLM_API_KEY may use LLM_MODEL %q", model)
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		return fmt.Sprintf("check LLM_MODEL %q and that LLM_API_BASE_URL %q is the API root, such as https://api.openai.com/v1", model, baseURL)
	case http.StatusBadRequest:
		return fmt.Sprintf("the endpoint refused the request; check LLM_MODEL %q, LLM_JSON_MODE, LLM_EXTRA_BODY, LLM_MAX_TOKENS and LLM_TEMPERATURE", model)
	case http.StatusTooManyRequests:
		return "rate limited"
	}
	return ""
}

// providerMessage pulls the human part out of an error body: the
// "error.message" of the OpenAI shape when present, else the body's first
// line, cut short.
func providerMessage(body string) string {
	body = strings.TrimSpace(body)
	if body == "" {
		return ""
	}
	if msg := errorMessageOf([]byte(body)); msg != "" {
		return clip(msg, 300)
	}
	if i := strings.IndexByte(body, '\n'); i >= 0 {
		body = body[:i]
	}
	return clip(body, 300)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Cut on a rune boundary.
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// parseRetryAfter reads the wait an endpoint asks for: retry-after-ms
// (OpenAI), then Retry-After as seconds or as an HTTP date.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// Error classes reported by Class, for tick records and metrics.
const (
	ClassNone        = ""
	ClassCanceled    = "canceled"
	ClassTimeout     = "timeout"
	ClassRateLimited = "rate_limited"
	ClassServer      = "server"
	ClassNetwork     = "network"
	ClassPermanent   = "permanent"
	ClassClient      = "client"
	ClassMalformed   = "malformed"
	ClassEmpty       = "empty"
	// ClassContextLength is a request longer than the model's context.
	ClassContextLength = "context_length"
)

// Class names the kind of a model error, for tick records and metrics:
// one of the Class constants, ClassNone for a nil error.
func Class(err error) string {
	if err == nil {
		return ClassNone
	}
	var se *StatusError
	var ne net.Error
	switch {
	case errors.Is(err, ErrEmptyAnswer):
		return ClassEmpty
	case errors.Is(err, ErrMalformed):
		return ClassMalformed
	case errors.As(err, &se):
		switch {
		case se.ContextLength():
			return ClassContextLength
		case se.Code == http.StatusTooManyRequests:
			return ClassRateLimited
		case se.Code >= 500:
			return ClassServer
		case permanentStatus(se.Code):
			return ClassPermanent
		case se.Code == http.StatusRequestTimeout:
			return ClassTimeout
		}
		return ClassClient
	case errors.Is(err, planner.ErrContextLength):
		return ClassContextLength
	case errors.Is(err, planner.ErrPermanent):
		return ClassPermanent
	case errors.Is(err, errAttemptTimeout):
		return ClassTimeout
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return ClassCanceled
	case errors.As(err, &ne) && ne.Timeout():
		return ClassTimeout
	}
	return ClassNetwork
}

// errAttemptTimeout marks an attempt cut by Config.Timeout while the
// caller's context was still alive.
var errAttemptTimeout = errors.New("model request timed out")

// redactor removes the API key from text that may echo it (error bodies,
// transport errors). Keys too short to be secret are left alone so that
// placeholder keys such as "x" do not garble messages.
type redactor string

func (r redactor) String(s string) string {
	if len(r) < 8 {
		return s
	}
	return strings.ReplaceAll(s, string(r), "[redacted]")
}

// redactedError carries an error whose text had the key removed, keeping
// the chain for errors.Is and errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

func (r redactor) Error(err error) error {
	if err == nil || len(r) < 8 {
		return err
	}
	msg := err.Error()
	clean := r.String(msg)
	if clean == msg {
		return err
	}
	return &redactedError{msg: clean, err: err}
}
