package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
)

// maxResponseBytes bounds a buffered response body.
const maxResponseBytes = 16 << 20

// exchange is what the transport learns about one attempt that go-openai
// does not hand back: its error path drops the response headers
// (Retry-After) and it has no way to add arbitrary body fields. One
// exchange travels in the attempt's context, so concurrent calls never
// share one.
type exchange struct {
	// merge holds the body fields to set (raw JSON) or, when nil, remove.
	merge map[string]json.RawMessage

	// Filled by the transport.
	sent   bool
	status int
	header http.Header
	body   []byte
}

type exchangeKey struct{}

func withExchange(ctx context.Context, ex *exchange) context.Context {
	return context.WithValue(ctx, exchangeKey{}, ex)
}

// transport merges body fields into chat requests and records each
// response's status, headers and body for the client.
type transport struct {
	base http.RoundTripper
}

// CloseIdleConnections closes the idle connections of the wrapped
// transport, when it keeps any.
func (t *transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// RoundTrip implements http.RoundTripper.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ex, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if ex == nil {
		return t.base.RoundTrip(req)
	}
	if len(ex.merge) > 0 && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read request body: %w", err)
		}
		body, err = mergeBody(body, ex.merge)
		if err != nil {
			return nil, err
		}
		// A RoundTripper must not modify the caller's request.
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req.ContentLength = int64(len(body))
	}
	ex.sent = true
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read response body: %w", err)
	}
	if len(body) > maxResponseBytes {
		return nil, fmt.Errorf("%w: response body exceeds %d bytes", ErrMalformed, maxResponseBytes)
	}
	ex.status = resp.StatusCode
	ex.header = resp.Header.Clone()
	ex.body = body
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	return resp, nil
}

// mergeBody sets (or, for a nil value, removes) top-level fields of a JSON
// object. It splices bytes: the kept fields are copied as they are and the
// set ones appended, so a large messages array is never decoded.
func mergeBody(body []byte, merge map[string]json.RawMessage) ([]byte, error) {
	out, ok := spliceFields(body, merge)
	if ok {
		return out, nil
	}
	// Not a plain object the scanner understands: decode and encode.
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, fmt.Errorf("merge request body: %w", err)
	}
	for k, v := range merge {
		if v == nil {
			delete(obj, k)
			continue
		}
		obj[k] = v
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("merge request body: %w", err)
	}
	return out, nil
}

// spliceFields copies the members of the top-level object in body whose
// keys are not in merge, then appends merge's non-nil fields in key order.
// It reports false when body is not an object it can scan; keys with
// escapes are handled by the caller's slow path.
func spliceFields(body []byte, merge map[string]json.RawMessage) ([]byte, bool) {
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return nil, false
	}
	out := make([]byte, 0, len(body)+64)
	out = append(out, '{')
	first := true
	i = skipSpace(body, i+1)
	if i < len(body) && body[i] == '}' {
		i++
	} else {
		for {
			// Key.
			if i >= len(body) || body[i] != '"' {
				return nil, false
			}
			keyEnd, escaped := scanString(body, i)
			if keyEnd < 0 || escaped {
				return nil, false
			}
			key := string(body[i+1 : keyEnd-1])
			j := skipSpace(body, keyEnd)
			if j >= len(body) || body[j] != ':' {
				return nil, false
			}
			valStart := skipSpace(body, j+1)
			valEnd := scanValue(body, valStart)
			if valEnd < 0 {
				return nil, false
			}
			if _, replaced := merge[key]; !replaced {
				if !first {
					out = append(out, ',')
				}
				first = false
				out = append(out, body[i:keyEnd]...)
				out = append(out, ':')
				out = append(out, body[valStart:valEnd]...)
			}
			i = skipSpace(body, valEnd)
			if i >= len(body) {
				return nil, false
			}
			if body[i] == ',' {
				i = skipSpace(body, i+1)
				continue
			}
			if body[i] != '}' {
				return nil, false
			}
			i++
			break
		}
	}
	if skipSpace(body, i) != len(body) {
		return nil, false
	}
	keys := make([]string, 0, len(merge))
	for k, v := range merge {
		if v != nil {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !first {
			out = append(out, ',')
		}
		first = false
		kb, _ := json.Marshal(k)
		out = append(out, kb...)
		out = append(out, ':')
		out = append(out, merge[k]...)
	}
	return append(out, '}'), true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString returns the index after the string starting at b[i] (a
// quote) and whether it holds escapes, or -1 when it is not closed.
func scanString(b []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return -1, escaped
}

// scanValue returns the index after the JSON value starting at b[i], or -1.
// It checks the structure (strings, brackets) but not the scalars, which
// came from encoding/json or from a value encoded at construction.
func scanValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		end, _ := scanString(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _ := scanString(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// encodeMerge turns ExtraBody (and the client's own optional fields) into
// raw JSON once, at construction, so each request only splices bytes.
func encodeMerge(fields map[string]any) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(fields))
	for k, v := range fields {
		if v == nil {
			out[k] = nil
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encode body field %q: %w", k, err)
		}
		if string(b) == "null" {
			out[k] = nil
			continue
		}
		out[k] = b
	}
	return out, nil
}

// extras are the fields of a success body that go-openai does not decode.
type extras struct {
	Choices []struct {
		Message struct {
			Reasoning        string `json:"reasoning"`
			ReasoningContent string `json:"reasoning_content"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		// DeepSeek reports cache hits here instead of prompt_tokens_details.
		PromptCacheHitTokens int `json:"prompt_cache_hit_tokens"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

func decodeExtras(body []byte) extras {
	var e extras
	_ = json.Unmarshal(body, &e) // best effort: go-openai already decoded the essentials
	return e
}

// errorMessageOf reads the provider's message from an error body:
// {"error":{"message":...}}, {"error":"..."} or {"message":...}.
func errorMessageOf(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return ""
	}
	if len(v.Error) > 0 {
		var inner struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(v.Error, &inner) == nil && inner.Message != "" {
			return inner.Message
		}
		var s string
		if json.Unmarshal(v.Error, &s) == nil && s != "" {
			return s
		}
	}
	if v.Message != "" {
		return v.Message
	}
	return v.Detail
}
