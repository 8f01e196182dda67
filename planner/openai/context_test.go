package openai

import (
	"errors"
	"strings"
	"testing"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/openai/openaitest"
)

// TestContextLengthIsClassified checks that a request refused as too long,
// in the words of each provider, is told apart from a bad setting: it wraps
// planner.ErrContextLength (not ErrPermanent), is not retried, and names
// the setting that bounds the request.
func TestContextLengthIsClassified(t *testing.T) {
	tests := []struct {
		name        string
		code        int
		body        string
		wantContext bool
	}{
		{
			name:        "openai",
			code:        400,
			body:        `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
			wantContext: true,
		},
		{
			name:        "deepseek",
			code:        400,
			body:        `{"error":{"message":"This model's maximum context length is 65536 tokens. However, you requested 70210 tokens (69186 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`,
			wantContext: true,
		},
		{
			name:        "vllm",
			code:        400,
			body:        `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5120 tokens (4096 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`,
			wantContext: true,
		},
		{
			name:        "vllm decoder prompt",
			code:        400,
			body:        `{"object":"error","message":"The decoder prompt (length 9000) is longer than the maximum model length of 8192. Make sure that max_model_len is no smaller than the number of text tokens.","type":"BadRequestError","code":400}`,
			wantContext: true,
		},
		{
			name:        "llama.cpp",
			code:        400,
			body:        `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}`,
			wantContext: true,
		},
		{
			name: "other bad request",
			code: 400,
			body: `{"error":{"message":"Invalid value for 'temperature': must be at most 2.","type":"invalid_request_error","param":"temperature","code":null}}`,
		},
		{
			name: "server error mentioning the context",
			code: 500,
			body: `{"error":{"message":"maximum context length computation failed","type":"server_error"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.NewServer(t, openaitest.Sequence(openaitest.Reply{Status: tt.code, Body: tt.body}, openaitest.Text(okAction)))
			cfg := testConfig(srv.URL())
			cfg.MaxAttempts = 1
			c, _ := newTestClient(t, cfg, nil)
			_, err := c.Complete(t.Context(), testRequest())
			if err == nil {
				t.Fatal("no error")
			}
			if got := errors.Is(err, planner.ErrContextLength); got != tt.wantContext {
				t.Fatalf("errors.Is(%v, ErrContextLength) = %v, want %v", err, got, tt.wantContext)
			}
			if !tt.wantContext {
				if Class(err) == ClassContextLength {
					t.Errorf("Class = %q for an unrelated error", Class(err))
				}
				return
			}
			if errors.Is(err, planner.ErrPermanent) {
				t.Errorf("a context-length error is reported as permanent: %v", err)
			}
			if Class(err) != ClassContextLength {
				t.Errorf("Class = %q, want %q", Class(err), ClassContextLength)
			}
			if !strings.Contains(err.Error(), "AIRI_PROMPT_MAX_TOKENS") || strings.Contains(err.Error(), "LLM_EXTRA_BODY") {
				t.Errorf("error %q should point at AIRI_PROMPT_MAX_TOKENS, not the model settings", err)
			}
			if !strings.Contains(err.Error(), planner.ErrContextLength.Error()) {
				t.Errorf("error %q does not say in words what it is (replay rebuilds it from the text)", err)
			}
			if srv.Calls() != 1 {
				t.Errorf("%d calls, want 1: a context-length error is not retried by the client", srv.Calls())
			}
		})
	}
}
