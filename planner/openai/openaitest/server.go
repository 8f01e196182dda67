// Package openaitest is a fake OpenAI-compatible Chat Completions server
// for tests: it speaks the real JSON over HTTP, records every request it
// receives, and answers each call with what a test function decides,
// including faults (an error status with Retry-After, a hang until the
// client gives up, a broken body, prose instead of JSON).
//
// NewServer runs it on httptest for in-process tests; Handler serves it
// anywhere (cmd/fakemodel runs it as a process for end-to-end tests of the
// built binary).
package openaitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Message is one message of a received request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// Images are the message's image parts, in order.
	Images []Image `json:"images,omitempty"`
}

// Request is one chat completion request as the server received it.
type Request struct {
	// Call numbers the requests the handler received, from 1.
	Call   int
	Path   string
	Header http.Header
	Model  string
	// Messages are the request's messages; a content given as parts is
	// joined into one text.
	Messages []Message
	User     string
	// ResponseFormat is the raw response_format field, nil when absent.
	ResponseFormat json.RawMessage
	// Temperature is nil when the request did not send one.
	Temperature         *float64
	MaxTokens           int
	MaxCompletionTokens int
	// Body holds every top-level field, for extra fields.
	Body map[string]json.RawMessage
	// Raw is the body as received.
	Raw []byte
}

// Has reports whether the body has a top-level field.
func (r Request) Has(field string) bool {
	_, ok := r.Body[field]
	return ok
}

// LastUser returns the content of the last user message: the state
// message of an airi request.
func (r Request) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// Usage is the token usage a reply reports.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	CachedTokens     int
}

// Reply is the server's answer to one call: a completion, or a fault when
// Status, Hang or Malformed is set.
type Reply struct {
	// Content is the assistant message's text.
	Content string
	// ReasoningContent is sent as message.reasoning_content (DeepSeek,
	// vLLM); Reasoning as message.reasoning (OpenRouter, Ollama).
	ReasoningContent string
	Reasoning        string
	// FinishReason defaults to "stop".
	FinishReason string
	// Usage, when nil, is estimated (about four bytes a token, cached
	// tokens from the prefix shared with the previous request of the same
	// user).
	Usage *Usage

	// Status, when set, answers with this code, Body (an OpenAI-shaped
	// error when empty) and the Retry-After header when set.
	Status     int
	Body       string
	RetryAfter string
	// Hang holds the request until the client gives up or the server
	// closes.
	Hang bool
	// Malformed answers 200 with a body that is not JSON.
	Malformed bool
}

// Text is a reply with the given content.
func Text(content string) Reply { return Reply{Content: content} }

// Status is an error reply with an OpenAI-shaped body; retryAfter is the
// Retry-After header value ("" for none).
func Status(code int, retryAfter string) Reply {
	return Reply{Status: code, RetryAfter: retryAfter}
}

// Hang is a reply that never comes: the request is held until the client
// gives up.
func Hang() Reply { return Reply{Hang: true} }

// Malformed is a 200 reply whose body is cut in the middle of the JSON.
func Malformed() Reply { return Reply{Malformed: true} }

// AnswerFunc decides the reply to one request.
type AnswerFunc func(ctx context.Context, req Request) Reply

// Sequence answers the n-th call with the n-th reply, and every call after
// the last with the last one.
func Sequence(replies ...Reply) AnswerFunc {
	return func(_ context.Context, req Request) Reply {
		if len(replies) == 0 {
			return Text(`{"action":"continue"}`)
		}
		return replies[min(req.Call, len(replies))-1]
	}
}

// Handler serves the Chat Completions API at any path ending in
// /chat/completions. It is safe for concurrent use.
type Handler struct {
	apiKey string
	models []string
	answer AnswerFunc

	transcribe TranscribeFunc

	mu             sync.Mutex
	requests       []Request
	transcriptions []Transcription
	lastBody       map[string][]byte // previous messages bytes per user, for cached tokens
	done           chan struct{}
	closed         bool
}

// Option configures a Handler.
type Option func(*Handler)

// WithAPIKey requires key as the bearer token. Other keys get a 401 whose
// message echoes the key received, as careless providers do, so tests can
// check that the client keeps it out of its errors and logs.
func WithAPIKey(key string) Option { return func(h *Handler) { h.apiKey = key } }

// WithModels lists the model names served; others get a 404
// model_not_found.
func WithModels(names ...string) Option { return func(h *Handler) { h.models = names } }

// NewHandler returns a handler that answers with answer.
func NewHandler(answer AnswerFunc, opts ...Option) *Handler {
	h := &Handler{answer: answer, lastBody: map[string][]byte{}, done: make(chan struct{})}
	for _, o := range opts {
		o(h)
	}
	return h
}

// Requests returns a copy of the chat completion requests received so far,
// in arrival order (rejected ones included).
func (h *Handler) Requests() []Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Request(nil), h.requests...)
}

// Calls returns how many chat completion requests were received.
func (h *Handler) Calls() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.requests)
}

// Close releases requests held by Hang replies.
func (h *Handler) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		close(h.done)
	}
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(strings.TrimRight(r.URL.Path, "/"), "/audio/transcriptions") {
		h.serveTranscription(w, r)
		return
	}
	if !strings.HasSuffix(strings.TrimRight(r.URL.Path, "/"), "/chat/completions") {
		writeError(w, http.StatusNotFound, "invalid_request_error", "unknown_url",
			fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path))
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed",
			fmt.Sprintf("%s is not allowed here, use POST", r.Method))
		return
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "could not read the body")
		return
	}
	req, err := decodeRequest(raw)
	req.Path = r.URL.Path
	req.Header = r.Header.Clone()
	req.Raw = raw

	h.mu.Lock()
	req.Call = len(h.requests) + 1
	h.requests = append(h.requests, req)
	h.mu.Unlock()

	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "We could not parse the JSON body of your request: "+err.Error())
		return
	}
	if h.apiKey != "" {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if got != h.apiKey {
			writeError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key",
				fmt.Sprintf("Incorrect API key provided: %s.", got))
			return
		}
	}
	if len(h.models) > 0 && !contains(h.models, req.Model) {
		writeError(w, http.StatusNotFound, "invalid_request_error", "model_not_found",
			fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model))
		return
	}
	if req.Model == "" || len(req.Messages) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "model and messages are required")
		return
	}

	reply := h.answer(r.Context(), req)
	switch {
	case reply.Hang:
		select {
		case <-r.Context().Done():
		case <-h.done:
			writeError(w, http.StatusServiceUnavailable, "server_error", "", "server shutting down")
		}
		return
	case reply.Status != 0:
		if reply.RetryAfter != "" {
			w.Header().Set("Retry-After", reply.RetryAfter)
		}
		if reply.Body != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(reply.Status)
			io.WriteString(w, reply.Body)
			return
		}
		writeError(w, reply.Status, errorType(reply.Status), "", http.StatusText(reply.Status))
		return
	case reply.Malformed:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"chatcmpl-broken","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"{\"act`)
		return
	}
	h.writeCompletion(w, req, reply)
}

func (h *Handler) writeCompletion(w http.ResponseWriter, req Request, reply Reply) {
	usage := reply.Usage
	if usage == nil {
		usage = h.estimate(req, reply)
	}
	finish := reply.FinishReason
	if finish == "" {
		finish = "stop"
	}
	msg := map[string]any{"role": "assistant", "content": reply.Content}
	if reply.ReasoningContent != "" {
		msg["reasoning_content"] = reply.ReasoningContent
	}
	if reply.Reasoning != "" {
		msg["reasoning"] = reply.Reasoning
	}
	body := map[string]any{
		"id":                 fmt.Sprintf("chatcmpl-fake-%d", req.Call),
		"object":             "chat.completion",
		"created":            time.Now().Unix(),
		"model":              req.Model,
		"system_fingerprint": "fp_fake",
		"choices": []any{map[string]any{
			"index":         0,
			"message":       msg,
			"logprobs":      nil,
			"finish_reason": finish,
		}},
		"usage": map[string]any{
			"prompt_tokens":     usage.PromptTokens,
			"completion_tokens": usage.CompletionTokens,
			"total_tokens":      usage.PromptTokens + usage.CompletionTokens,
			"prompt_tokens_details": map[string]any{
				"cached_tokens": usage.CachedTokens,
			},
		},
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(body)
}

// estimate counts about four bytes a token; cached tokens are the bytes
// of messages shared with the previous request of the same user.
func (h *Handler) estimate(req Request, reply Reply) *Usage {
	var buf bytes.Buffer
	for _, m := range req.Messages {
		buf.WriteString(m.Role)
		buf.WriteByte(0)
		buf.WriteString(m.Content)
		buf.WriteByte(0)
	}
	cur := buf.Bytes()
	h.mu.Lock()
	prev := h.lastBody[req.User]
	h.lastBody[req.User] = cur
	h.mu.Unlock()
	common := 0
	for common < len(prev) && common < len(cur) && prev[common] == cur[common] {
		common++
	}
	return &Usage{
		PromptTokens:     len(cur)/4 + 1,
		CompletionTokens: len(reply.Content)/4 + 1,
		CachedTokens:     common / 4,
	}
}

func decodeRequest(raw []byte) (Request, error) {
	var req Request
	if err := json.Unmarshal(raw, &req.Body); err != nil {
		return req, err
	}
	var body struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		User                string          `json:"user"`
		ResponseFormat      json.RawMessage `json:"response_format"`
		Temperature         *float64        `json:"temperature"`
		MaxTokens           int             `json:"max_tokens"`
		MaxCompletionTokens int             `json:"max_completion_tokens"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return req, err
	}
	req.Model = body.Model
	req.User = body.User
	req.ResponseFormat = body.ResponseFormat
	req.Temperature = body.Temperature
	req.MaxTokens = body.MaxTokens
	req.MaxCompletionTokens = body.MaxCompletionTokens
	for i, m := range body.Messages {
		images, err := contentImages(m.Content)
		if err != nil {
			return req, fmt.Errorf("messages[%d]: %w", i, err)
		}
		req.Messages = append(req.Messages, Message{Role: m.Role, Content: contentText(m.Content), Images: images})
	}
	return req, nil
}

// contentText reads a message content given as a string or as parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return ""
}

func writeError(w http.ResponseWriter, code int, typ, errCode, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	var c any
	if errCode != "" {
		c = errCode
	}
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "param": nil, "code": c,
	}})
}

func errorType(code int) string {
	switch {
	case code == http.StatusTooManyRequests:
		return "rate_limit_exceeded"
	case code >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Server is a Handler running on an httptest server.
type Server struct {
	*Handler
	srv *httptest.Server
}

// NewServer starts a fake endpoint on 127.0.0.1 that answers with answer,
// and closes it when the test ends.
func NewServer(t testing.TB, answer AnswerFunc, opts ...Option) *Server {
	t.Helper()
	h := NewHandler(answer, opts...)
	s := &Server{Handler: h, srv: httptest.NewServer(h)}
	t.Cleanup(s.Close)
	return s
}

// URL is the API root to configure as LLM_API_BASE_URL (it ends in /v1).
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Close releases hanging requests and stops the server.
func (s *Server) Close() {
	s.Handler.Close()
	s.srv.Close()
}
