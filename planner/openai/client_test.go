package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/airi-go/airi/internal/backoff"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/state"
)

const testKey = "sk-test-0123456789abcdef"

// waits records the waits a client asked for between attempts and returns
// at once, so retry tests never sleep.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) wait(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	return context.Cause(ctx)
}

func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

func testConfig(url string) Config {
	return Config{
		BaseURL:     url,
		APIKey:      testKey,
		Model:       "test-model",
		Timeout:     5 * time.Second,
		MaxAttempts: 4,
		MinBackoff:  time.Millisecond,
		MaxBackoff:  5 * time.Second,
	}
}

// newTestClient builds a client whose waits are recorded instead of slept.
func newTestClient(t *testing.T, cfg Config, logger *zap.Logger) (*Client, *waits) {
	t.Helper()
	if logger == nil {
		logger = zaptest.NewLogger(t)
	}
	c, err := New(cfg, logger)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	w := &waits{}
	c.wait = w.wait
	return c, w
}

func testRequest() planner.Request {
	return planner.Request{
		ChannelID: "console",
		User:      "airi:console",
		Messages: []state.ChatMessage{
			{Role: "system", Content: "You are a test."},
			{Role: "user", Content: "you: hello"},
		},
	}
}

const okAction = `{"action":"continue"}`

func TestCompleteSuccess(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Sequence(openaitest.Reply{
		Content:          okAction,
		ReasoningContent: "the user greeted",
		Usage:            &openaitest.Usage{PromptTokens: 120, CompletionTokens: 7, CachedTokens: 64},
	}), openaitest.WithAPIKey(testKey))
	c, _ := newTestClient(t, testConfig(srv.URL()), nil)

	resp, err := c.Complete(t.Context(), testRequest())
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if resp.Content != okAction {
		t.Errorf("Content = %q, want %q", resp.Content, okAction)
	}
	if resp.Reasoning != "the user greeted" {
		t.Errorf("Reasoning = %q", resp.Reasoning)
	}
	want := state.Usage{PromptTokens: 120, CompletionTokens: 7, CachedTokens: 64}
	if resp.Usage != want {
		t.Errorf("Usage = %+v, want %+v", resp.Usage, want)
	}
	if resp.Attempts != 1 {
		t.Errorf("Attempts = %d, want 1", resp.Attempts)
	}
	if resp.Latency <= 0 {
		t.Errorf("Latency = %v, want > 0", resp.Latency)
	}

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server got %d requests, want 1", len(reqs))
	}
	got := reqs[0]
	if got.Path != "/v1/chat/completions" {
		t.Errorf("path = %q", got.Path)
	}
	if got.Model != "test-model" || got.User != "airi:console" || got.MaxTokens != DefaultMaxTokens {
		t.Errorf("model %q user %q max_tokens %d", got.Model, got.User, got.MaxTokens)
	}
	if len(got.Messages) != 2 || got.Messages[1].Role != "user" || got.Messages[1].Content != "you: hello" {
		t.Errorf("messages = %+v", got.Messages)
	}
	for _, f := range []string{"temperature", "response_format", "max_completion_tokens"} {
		if got.Has(f) {
			t.Errorf("request has %q, want it unset", f)
		}
	}
	if h := got.Header.Get("Authorization"); h != "Bearer "+testKey {
		t.Errorf("Authorization = %q", h)
	}
}

func TestCompleteReasoningShapes(t *testing.T) {
	tests := []struct {
		name          string
		reply         openaitest.Reply
		wantReasoning string
		wantCached    int
	}{
		{
			name:          "think block in content",
			reply:         openaitest.Reply{Content: "<think>pondering</think>\n" + okAction},
			wantReasoning: "pondering",
		},
		{
			name:          "reasoning field",
			reply:         openaitest.Reply{Content: okAction, Reasoning: "routed thoughts"},
			wantReasoning: "routed thoughts",
		},
		{
			name:          "both fields and a block",
			reply:         openaitest.Reply{Content: "<think>b</think>" + okAction, ReasoningContent: "a", Reasoning: "a"},
			wantReasoning: "a\n\nb",
		},
		{
			name:  "deepseek cache hits",
			reply: openaitest.Reply{Content: okAction, Usage: &openaitest.Usage{PromptTokens: 10}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.NewServer(t, openaitest.Sequence(tt.reply))
			c, _ := newTestClient(t, testConfig(srv.URL()), nil)
			resp, err := c.Complete(t.Context(), testRequest())
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.Content != tt.reply.Content {
				t.Errorf("Content = %q, want the raw %q", resp.Content, tt.reply.Content)
			}
			if resp.Reasoning != tt.wantReasoning {
				t.Errorf("Reasoning = %q, want %q", resp.Reasoning, tt.wantReasoning)
			}
		})
	}
}

func TestCompleteDeepSeekCacheHits(t *testing.T) {
	// DeepSeek reports cache hits as usage.prompt_cache_hit_tokens.
	body := `{"id":"x","object":"chat.completion","created":1,"model":"deepseek-chat",
		"choices":[{"index":0,"message":{"role":"assistant","content":"{\"action\":\"continue\"}"},"finish_reason":"stop"}],
		"usage":{"prompt_tokens":100,"completion_tokens":5,"total_tokens":105,"prompt_cache_hit_tokens":80,"prompt_cache_miss_tokens":20}}`
	srv := openaitest.NewServer(t, openaitest.Sequence(openaitest.Reply{Status: http.StatusOK, Body: body}))
	c, _ := newTestClient(t, testConfig(srv.URL()), nil)
	resp, err := c.Complete(t.Context(), testRequest())
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if resp.Usage.CachedTokens != 80 || resp.Usage.PromptTokens != 100 {
		t.Errorf("Usage = %+v, want 80 cached of 100", resp.Usage)
	}
}

func TestCompleteRetries(t *testing.T) {
	ok := openaitest.Text(okAction)
	tests := []struct {
		name    string
		replies []openaitest.Reply
		// wantMinWait is the least wait the client must ask for before
		// its second attempt (a Retry-After).
		wantMinWait time.Duration
		wantClass   string
	}{
		{"429 with Retry-After seconds", []openaitest.Reply{openaitest.Status(429, "2"), ok}, 2 * time.Second, ClassRateLimited},
		{"429 with Retry-After date", []openaitest.Reply{openaitest.Status(429, time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)), ok}, 5 * time.Second, ClassRateLimited},
		{"500", []openaitest.Reply{openaitest.Status(500, ""), ok}, 0, ClassServer},
		{"502 then 503", []openaitest.Reply{openaitest.Status(502, ""), openaitest.Status(503, "1"), ok}, 0, ClassServer},
		{"malformed body", []openaitest.Reply{openaitest.Malformed(), ok}, 0, ClassMalformed},
		{"html page", []openaitest.Reply{{Status: 200, Body: "<html><body>hello</body></html>"}, ok}, 0, ClassMalformed},
		{"200 carrying an error", []openaitest.Reply{{Status: 200, Body: `{"error":{"message":"upstream overloaded"}}`}, ok}, 0, ClassMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.NewServer(t, openaitest.Sequence(tt.replies...))
			core, logs := observer.New(zapcore.DebugLevel)
			c, w := newTestClient(t, testConfig(srv.URL()), zap.New(core))
			resp, err := c.Complete(t.Context(), testRequest())
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.Content != okAction {
				t.Errorf("Content = %q", resp.Content)
			}
			if resp.Attempts != len(tt.replies) || srv.Calls() != len(tt.replies) {
				t.Errorf("Attempts = %d, server calls = %d, want %d", resp.Attempts, srv.Calls(), len(tt.replies))
			}
			ws := w.all()
			if len(ws) != len(tt.replies)-1 {
				t.Fatalf("waits = %v, want %d", ws, len(tt.replies)-1)
			}
			if ws[0] < tt.wantMinWait || ws[0] > c.cfg.MaxBackoff {
				t.Errorf("first wait = %v, want within [%v, %v]", ws[0], tt.wantMinWait, c.cfg.MaxBackoff)
			}
			retried := logs.FilterMessage("model call failed, retrying").All()
			if len(retried) == 0 || retried[0].ContextMap()["class"] != tt.wantClass {
				t.Errorf("retry logs = %+v, want class %q", retried, tt.wantClass)
			}
		})
	}
}

func TestCompleteTimeoutThenSuccess(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Sequence(openaitest.Hang(), openaitest.Text(okAction)))
	cfg := testConfig(srv.URL())
	cfg.Timeout = 300 * time.Millisecond
	core, logs := observer.New(zapcore.DebugLevel)
	c, w := newTestClient(t, cfg, zap.New(core))
	resp, err := c.Complete(t.Context(), testRequest())
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	// Two attempts, unless a loaded machine made the answer itself miss
	// the timeout; every attempt but the last is followed by a wait.
	if resp.Attempts < 2 || len(w.all()) != resp.Attempts-1 || srv.Calls() != resp.Attempts {
		t.Errorf("Attempts = %d, waits = %v, calls = %d", resp.Attempts, w.all(), srv.Calls())
	}
	retried := logs.FilterMessage("model call failed, retrying").All()
	if len(retried) == 0 || retried[0].ContextMap()["class"] != ClassTimeout {
		t.Errorf("first retry logs = %+v, want class timeout", retried)
	}
}

func TestCompleteGivesUp(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Sequence(openaitest.Status(503, "")))
	cfg := testConfig(srv.URL())
	cfg.MaxAttempts = 3
	c, _ := newTestClient(t, cfg, nil)
	resp, err := c.Complete(t.Context(), testRequest())
	var se *StatusError
	if !errors.As(err, &se) || se.Code != 503 {
		t.Fatalf("err = %v, want a 503 StatusError", err)
	}
	if errors.Is(err, planner.ErrPermanent) {
		t.Errorf("a 503 must not be permanent: %v", err)
	}
	if resp.Attempts != 3 || srv.Calls() != 3 {
		t.Errorf("Attempts = %d, calls = %d, want 3", resp.Attempts, srv.Calls())
	}
	if Class(err) != ClassServer {
		t.Errorf("Class = %q", Class(err))
	}
}

func TestCompletePermanent(t *testing.T) {
	tests := []struct {
		name     string
		cfg      func(*Config)
		opts     []openaitest.Option
		reply    openaitest.Reply
		wantCode int
		wantHint []string
	}{
		{
			name:     "bad key",
			cfg:      func(c *Config) { c.APIKey = "sk-wrong-key-9876543210" },
			opts:     []openaitest.Option{openaitest.WithAPIKey(testKey)},
			wantCode: 401,
			// The fake echoes the key it received; the client removes it.
			wantHint: []string{"LLM_API_KEY", "[redacted]"},
		},
		{
			name:     "unknown model",
			cfg:      func(c *Config) { c.Model = "no-such-model" },
			opts:     []openaitest.Option{openaitest.WithModels("test-model")},
			wantCode: 404,
			wantHint: []string{"LLM_MODEL", "no-such-model", "LLM_API_BASE_URL"},
		},
		{
			name:     "bad request",
			reply:    openaitest.Status(400, ""),
			wantCode: 400,
			wantHint: []string{"LLM_MODEL", "LLM_EXTRA_BODY"},
		},
		{
			name:     "forbidden",
			reply:    openaitest.Status(403, ""),
			wantCode: 403,
			wantHint: []string{"LLM_API_KEY", "LLM_MODEL"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply := tt.reply
			if reply == (openaitest.Reply{}) {
				reply = openaitest.Text(okAction)
			}
			srv := openaitest.NewServer(t, openaitest.Sequence(reply), tt.opts...)
			cfg := testConfig(srv.URL())
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			core, logs := observer.New(zapcore.DebugLevel)
			c, w := newTestClient(t, cfg, zap.New(core))
			resp, err := c.Complete(t.Context(), testRequest())
			if !errors.Is(err, planner.ErrPermanent) {
				t.Fatalf("err = %v, want ErrPermanent", err)
			}
			var se *StatusError
			if !errors.As(err, &se) || se.Code != tt.wantCode {
				t.Fatalf("err = %v, want StatusError %d", err, tt.wantCode)
			}
			for _, h := range tt.wantHint {
				if !strings.Contains(err.Error(), h) {
					t.Errorf("error %q does not name %q", err, h)
				}
			}
			if resp.Attempts != 1 || srv.Calls() != 1 || len(w.all()) != 0 {
				t.Errorf("Attempts = %d, calls = %d, waits = %v: want one try, no retry", resp.Attempts, srv.Calls(), w.all())
			}
			if Class(err) != ClassPermanent {
				t.Errorf("Class = %q", Class(err))
			}
			assertNoSecret(t, cfg.APIKey, err, logs)
			if logs.Len() == 0 {
				t.Errorf("no log line for a failed call")
			}
		})
	}
}

// assertNoSecret fails when the key appears in the error or any log line.
func assertNoSecret(t *testing.T, key string, err error, logs *observer.ObservedLogs) {
	t.Helper()
	if strings.Contains(err.Error(), key) {
		t.Errorf("error contains the API key: %v", err)
	}
	for _, e := range logs.All() {
		line, _ := json.Marshal(map[string]any{"msg": e.Message, "fields": e.ContextMap()})
		if strings.Contains(string(line), key) {
			t.Errorf("log line contains the API key: %s", line)
		}
	}
}

func TestCompleteWrongBaseURL(t *testing.T) {
	// A base URL that reaches a web server but not an API: plain 404 pages.
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	c, w := newTestClient(t, testConfig(srv.URL+"/api"), nil)
	_, err := c.Complete(t.Context(), testRequest())
	var se *StatusError
	if !errors.As(err, &se) || se.Code != 404 || !errors.Is(err, planner.ErrPermanent) {
		t.Fatalf("err = %v, want a permanent 404", err)
	}
	if !strings.Contains(err.Error(), "LLM_API_BASE_URL") || !strings.Contains(err.Error(), "404 page not found") {
		t.Errorf("err = %q, want the setting and the body's first line", err)
	}
	if len(w.all()) != 0 {
		t.Errorf("retried a 404: waits %v", w.all())
	}
}

func TestCompleteCancelDuringBackoff(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Sequence(openaitest.Status(429, "3600"), openaitest.Text(okAction)))
	cfg := testConfig(srv.URL())
	cfg.MaxBackoff = time.Hour
	c, _ := newTestClient(t, cfg, nil)
	waiting := make(chan time.Duration, 1)
	c.wait = func(ctx context.Context, d time.Duration) error {
		waiting <- d
		return backoff.Sleep(ctx, d) // the real wait: an hour unless cancelled
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	type result struct {
		resp planner.Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := c.Complete(ctx, testRequest())
		done <- result{resp, err}
	}()
	if d := <-waiting; d != time.Hour {
		t.Errorf("wait = %v, want the hour Retry-After asked for", d)
	}
	cancel()
	r := <-done
	if !errors.Is(r.err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", r.err)
	}
	if r.resp.Attempts != 1 || srv.Calls() != 1 {
		t.Errorf("Attempts = %d, calls = %d, want 1", r.resp.Attempts, srv.Calls())
	}
	if Class(r.err) != ClassCanceled {
		t.Errorf("Class = %q", Class(r.err))
	}
}

func TestCompleteCancelDuringRequest(t *testing.T) {
	arrived := make(chan struct{})
	srv := openaitest.NewServer(t, func(ctx context.Context, req openaitest.Request) openaitest.Reply {
		close(arrived)
		return openaitest.Hang()
	})
	c, w := newTestClient(t, testConfig(srv.URL()), nil)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-arrived
		cancel()
	}()
	_, err := c.Complete(ctx, testRequest())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if len(w.all()) != 0 || srv.Calls() != 1 {
		t.Errorf("waits = %v, calls = %d: a cancelled call must not retry", w.all(), srv.Calls())
	}
}

func TestCompleteConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg := testConfig("http://" + addr + "/v1")
	cfg.MaxAttempts = 2
	core, logs := observer.New(zapcore.DebugLevel)
	c, w := newTestClient(t, cfg, zap.New(core))
	resp, err := c.Complete(t.Context(), testRequest())
	if err == nil {
		t.Fatal("Complete succeeded against a closed port")
	}
	if errors.Is(err, planner.ErrPermanent) {
		t.Errorf("a refused connection must be retried, not permanent: %v", err)
	}
	if resp.Attempts != 2 || len(w.all()) != 1 {
		t.Errorf("Attempts = %d, waits = %v", resp.Attempts, w.all())
	}
	if Class(err) != ClassNetwork || !strings.Contains(err.Error(), "LLM_API_BASE_URL") {
		t.Errorf("Class = %q, err = %v", Class(err), err)
	}
	assertNoSecret(t, testKey, err, logs)
}

func TestCompleteEmptyAnswer(t *testing.T) {
	tests := []struct {
		name          string
		reply         openaitest.Reply
		wantReasoning string
		wantIn        string
	}{
		{"think only", openaitest.Reply{Content: "<think>I should greet them.</think>\n  "}, "I should greet them.", "only <think>"},
		{"think left open", openaitest.Reply{Content: "<think>I should", FinishReason: "length"}, "I should", "LLM_MAX_TOKENS"},
		{"reasoning field only", openaitest.Reply{ReasoningContent: "hmm", FinishReason: "length"}, "hmm", "ran out of tokens"},
		{"empty", openaitest.Reply{Content: ""}, "", "no text"},
		{"white space", openaitest.Reply{Content: " \n\t"}, "", "no text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.NewServer(t, openaitest.Sequence(tt.reply, openaitest.Text(okAction)))
			c, w := newTestClient(t, testConfig(srv.URL()), nil)
			resp, err := c.Complete(t.Context(), testRequest())
			if !errors.Is(err, ErrEmptyAnswer) {
				t.Fatalf("err = %v, want ErrEmptyAnswer", err)
			}
			if errors.Is(err, planner.ErrPermanent) {
				t.Errorf("an empty answer is not permanent")
			}
			if !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("err = %q, want it to mention %q", err, tt.wantIn)
			}
			if resp.Reasoning != tt.wantReasoning {
				t.Errorf("Reasoning = %q, want %q", resp.Reasoning, tt.wantReasoning)
			}
			if resp.Content != tt.reply.Content {
				t.Errorf("Content = %q, want the raw answer", resp.Content)
			}
			if resp.Attempts != 1 || srv.Calls() != 1 || len(w.all()) != 0 {
				t.Errorf("attempts %d, calls %d: an empty answer is not retried", resp.Attempts, srv.Calls())
			}
			if resp.Usage.CompletionTokens == 0 {
				t.Errorf("usage of the empty answer was not kept: %+v", resp.Usage)
			}
		})
	}
}

func TestCompleteRequestShape(t *testing.T) {
	zero := float32(0)
	warm := float32(0.7)
	schema := json.RawMessage(`{"type":"object","properties":{"action":{"type":"string"}},"required":["action"]}`)
	tests := []struct {
		name  string
		cfg   func(*Config)
		req   func(*planner.Request)
		check func(t *testing.T, r openaitest.Request)
	}{
		{
			name: "extra body merged",
			cfg: func(c *Config) {
				c.ExtraBody = map[string]any{
					"chat_template_kwargs": map[string]any{"enable_thinking": false},
					"top_k":                20,
					"max_tokens":           nil,
					"model":                "override-model",
				}
			},
			check: func(t *testing.T, r openaitest.Request) {
				if string(r.Body["chat_template_kwargs"]) != `{"enable_thinking":false}` {
					t.Errorf("chat_template_kwargs = %s", r.Body["chat_template_kwargs"])
				}
				if string(r.Body["top_k"]) != "20" {
					t.Errorf("top_k = %s", r.Body["top_k"])
				}
				if r.Has("max_tokens") {
					t.Errorf("max_tokens sent although LLM_EXTRA_BODY removed it")
				}
				if r.Model != "override-model" {
					t.Errorf("model = %q, want the extra body's", r.Model)
				}
				if len(r.Messages) != 2 {
					t.Errorf("messages lost in the merge: %+v", r.Messages)
				}
			},
		},
		{
			name: "json mode object",
			cfg:  func(c *Config) { c.JSONMode = JSONModeObject },
			check: func(t *testing.T, r openaitest.Request) {
				if string(r.ResponseFormat) != `{"type":"json_object"}` {
					t.Errorf("response_format = %s", r.ResponseFormat)
				}
			},
		},
		{
			name: "json mode schema",
			cfg:  func(c *Config) { c.JSONMode = JSONModeSchema; c.Schema = schema },
			check: func(t *testing.T, r openaitest.Request) {
				var rf struct {
					Type       string `json:"type"`
					JSONSchema struct {
						Name   string          `json:"name"`
						Schema json.RawMessage `json:"schema"`
						Strict bool            `json:"strict"`
					} `json:"json_schema"`
				}
				if err := json.Unmarshal(r.ResponseFormat, &rf); err != nil {
					t.Fatalf("response_format %s: %v", r.ResponseFormat, err)
				}
				if rf.Type != "json_schema" || rf.JSONSchema.Name == "" || rf.JSONSchema.Strict {
					t.Errorf("response_format = %s", r.ResponseFormat)
				}
				if string(rf.JSONSchema.Schema) != string(schema) {
					t.Errorf("schema = %s, want %s", rf.JSONSchema.Schema, schema)
				}
			},
		},
		{
			name: "temperature zero is sent",
			cfg:  func(c *Config) { c.Temperature = &zero },
			check: func(t *testing.T, r openaitest.Request) {
				if r.Temperature == nil || *r.Temperature != 0 {
					t.Errorf("temperature = %v, want 0 sent", r.Temperature)
				}
			},
		},
		{
			name: "reasoning model name",
			cfg:  func(c *Config) { c.Model = "gpt-5-mini"; c.Temperature = &warm; c.MaxTokens = 300 },
			check: func(t *testing.T, r openaitest.Request) {
				if r.Has("max_tokens") || r.MaxCompletionTokens != 300 {
					t.Errorf("max_tokens sent %v, max_completion_tokens = %d", r.Has("max_tokens"), r.MaxCompletionTokens)
				}
				if r.Temperature == nil || float32(*r.Temperature) != warm {
					t.Errorf("temperature = %v, want the configured 0.7", r.Temperature)
				}
			},
		},
		{
			name: "user omitted when empty",
			req:  func(r *planner.Request) { r.User = "" },
			check: func(t *testing.T, r openaitest.Request) {
				if r.Has("user") {
					t.Errorf("user sent: %s", r.Body["user"])
				}
			},
		},
		{
			name: "user sent",
			req:  func(r *planner.Request) { r.User = "airi:-1001234567890" },
			check: func(t *testing.T, r openaitest.Request) {
				if r.User != "airi:-1001234567890" {
					t.Errorf("user = %q", r.User)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.NewServer(t, openaitest.Sequence(openaitest.Text(okAction)))
			cfg := testConfig(srv.URL())
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			c, _ := newTestClient(t, cfg, nil)
			req := testRequest()
			if tt.req != nil {
				tt.req(&req)
			}
			if _, err := c.Complete(t.Context(), req); err != nil {
				t.Fatalf("Complete: %v", err)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("server got %d requests", len(reqs))
			}
			tt.check(t, reqs[0])
		})
	}
}

func TestCompleteToolCallAnswer(t *testing.T) {
	body := `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,
		"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",
		"function":{"name":"send_message","arguments":"{\"channelId\":\"console\",\"content\":\"hi\"}"}}]},
		"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	srv := openaitest.NewServer(t, openaitest.Sequence(openaitest.Reply{Status: 200, Body: body}))
	c, _ := newTestClient(t, testConfig(srv.URL()), nil)
	resp, err := c.Complete(t.Context(), testRequest())
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	var call struct{ Name, Arguments string }
	if err := json.Unmarshal([]byte(resp.Content), &call); err != nil || call.Name != "send_message" || !strings.Contains(call.Arguments, `"hi"`) {
		t.Errorf("Content = %q, want the tool call's shape", resp.Content)
	}
}

func TestCompleteConcurrent(t *testing.T) {
	srv := openaitest.NewServer(t, func(_ context.Context, r openaitest.Request) openaitest.Reply {
		return openaitest.Text(`{"action":"continue","for":"` + r.User + `"}`)
	})
	c, _ := newTestClient(t, testConfig(srv.URL()), nil)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			req := testRequest()
			req.User = "airi:" + string(rune('a'+i))
			resp, err := c.Complete(t.Context(), req)
			if err == nil && !strings.Contains(resp.Content, req.User) {
				err = errors.New("answer for " + req.User + " was " + resp.Content)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestCompleteUnderFaults(t *testing.T) {
	// The fake's echo policy with a third of the answers replaced by 429,
	// 500, hangs and prose: every call ends with an answer, prose
	// included (the parser, not the client, refuses it).
	srv := openaitest.NewServer(t, openaitest.Faults(openaitest.Echo(openaitest.EchoOptions{}),
		openaitest.FaultOptions{Rate: 0.3, Seed: 5, RetryAfter: "0"}))
	cfg := testConfig(srv.URL())
	cfg.Timeout = 100 * time.Millisecond
	cfg.MaxAttempts = 8
	c, w := newTestClient(t, cfg, nil)
	var echoes, prose int
	for i := range 25 {
		req := testRequest()
		req.Messages[1].Content = "New messages:\n- id \"" + string(rune('a'+i)) + "\" 10:00 \"you\": \"hi\""
		resp, err := c.Complete(t.Context(), req)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		switch {
		case strings.Contains(resp.Content, `"echo: hi"`):
			echoes++
		case !strings.Contains(resp.Content, "{"):
			prose++
		default:
			t.Errorf("call %d: unexpected answer %q", i, resp.Content)
		}
	}
	if echoes+prose != 25 || len(w.all()) == 0 {
		t.Errorf("echoes %d, prose %d, retries %d", echoes, prose, len(w.all()))
	}
	// An attempt given up on its timeout may or may not have reached the
	// server's handler before the connection closed, so the server sees
	// between one call per answer and one more per retry.
	if n := srv.Calls(); n < 25 || n > 25+len(w.all()) {
		t.Errorf("server calls %d, want one per answer plus at most one per retry (25..%d)", n, 25+len(w.all()))
	}
}

func TestCompleteWithoutKey(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Sequence(openaitest.Text(okAction)))
	cfg := testConfig(srv.URL())
	cfg.APIKey = ""
	c, _ := newTestClient(t, cfg, nil)
	if _, err := c.Complete(t.Context(), testRequest()); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if h := srv.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization = %q, want none without a key", h)
	}

	locked := openaitest.NewServer(t, openaitest.Sequence(openaitest.Text(okAction)), openaitest.WithAPIKey(testKey))
	c, _ = newTestClient(t, Config{BaseURL: locked.URL(), Model: "m"}, nil)
	_, err := c.Complete(t.Context(), testRequest())
	if !errors.Is(err, planner.ErrPermanent) || !strings.Contains(err.Error(), "LLM_API_KEY is not set") {
		t.Errorf("err = %v, want a permanent error saying the key is missing", err)
	}
}

func TestCompleteCancelKeepsCause(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Sequence(openaitest.Status(503, "3600"), openaitest.Text(okAction)))
	cfg := testConfig(srv.URL())
	cfg.MaxBackoff = time.Hour
	c, _ := newTestClient(t, cfg, nil)
	errNewMessage := errors.New("a new message arrived")
	ctx, cancel := context.WithCancelCause(t.Context())
	c.wait = func(ctx context.Context, d time.Duration) error {
		cancel(errNewMessage) // the scheduler interrupts during the wait
		return backoff.Sleep(ctx, d)
	}
	_, err := c.Complete(ctx, testRequest())
	if !errors.Is(err, context.Canceled) || !errors.Is(err, errNewMessage) {
		t.Errorf("err = %v, want both context.Canceled and the cause", err)
	}
}
