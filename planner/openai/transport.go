package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
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
// object. The other members are kept as raw JSON, never decoded; the
// result has its keys in sorted order.
//
// Plain encoding/json on purpose: a hand-written byte splice was about 8x
// faster (BenchmarkMergeBody, a 17 KB request), but that saves about 0.3ms
// of a model call, which BenchmarkComplete puts near 1ms even against a
// local fake and a real model at hundreds of milliseconds or more.
func mergeBody(body []byte, merge map[string]json.RawMessage) ([]byte, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, fmt.Errorf("merge request body: %w", err)
	}
	if obj == nil {
		return nil, errors.New("merge request body: the body is not a JSON object")
	}
	for k, v := range merge {
		if v == nil {
			delete(obj, k)
			continue
		}
		obj[k] = v
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	// The messages go out as the caller wrote them, < and > included.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obj); err != nil {
		return nil, fmt.Errorf("merge request body: %w", err)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

// encodeMerge turns ExtraBody (and the client's own optional fields) into
// raw JSON once, at construction, so each request only merges bytes.
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
