package openai

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	good := Config{BaseURL: "http://localhost:11434/v1", APIKey: "ollama", Model: "qwen3"}
	hot := float32(2.5)
	tests := []struct {
		name string
		edit func(*Config)
		// want lists the variables the errors must name; empty = valid.
		want []string
	}{
		{"valid", func(*Config) {}, nil},
		{"valid schema mode", func(c *Config) { c.JSONMode = JSONModeSchema; c.Schema = json.RawMessage(`{"type":"object"}`) }, nil},
		{"nothing set", func(c *Config) { *c = Config{} }, []string{"LLM_API_BASE_URL", "LLM_MODEL"}},
		{"no key for a local server", func(c *Config) { c.APIKey = "" }, nil},
		{"no scheme", func(c *Config) { c.BaseURL = "localhost:11434/v1" }, []string{"LLM_API_BASE_URL"}},
		{"ftp", func(c *Config) { c.BaseURL = "ftp://example.com/v1" }, []string{"LLM_API_BASE_URL"}},
		{"full endpoint given", func(c *Config) { c.BaseURL = "https://api.openai.com/v1/chat/completions" }, []string{"LLM_API_BASE_URL"}},
		{"negative timeout", func(c *Config) { c.Timeout = -time.Second }, []string{"LLM_TIMEOUT"}},
		{"hot temperature", func(c *Config) { c.Temperature = &hot }, []string{"LLM_TEMPERATURE"}},
		{"negative max tokens", func(c *Config) { c.MaxTokens = -1 }, []string{"LLM_MAX_TOKENS"}},
		{"unknown json mode", func(c *Config) { c.JSONMode = "strict" }, []string{"LLM_JSON_MODE"}},
		{"schema mode without schema", func(c *Config) { c.JSONMode = JSONModeSchema }, []string{"LLM_JSON_MODE"}},
		{"schema not an object", func(c *Config) { c.JSONMode = JSONModeSchema; c.Schema = json.RawMessage(`[1]`) }, []string{"LLM_JSON_MODE"}},
		{"extra body sets messages", func(c *Config) { c.ExtraBody = map[string]any{"messages": []any{}} }, []string{"LLM_EXTRA_BODY"}},
		{"extra body not encodable", func(c *Config) { c.ExtraBody = map[string]any{"f": func() {}} }, []string{"LLM_EXTRA_BODY"}},
		{"two problems", func(c *Config) { c.Model = ""; c.MaxTokens = -5 }, []string{"LLM_MODEL", "LLM_MAX_TOKENS"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := good
			tt.edit(&c)
			err := c.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate accepted %+v", c)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tt.want) {
				t.Errorf("got %d problems, want %d: %v", len(lines), len(tt.want), err)
			}
			for _, v := range tt.want {
				if !strings.Contains(err.Error(), v) {
					t.Errorf("error %q does not name %s", err, v)
				}
			}
		})
	}
}

func TestValidateHidesURLPassword(t *testing.T) {
	c := Config{BaseURL: "ftp://user:hunter2secret@example.com/v1", APIKey: "k", Model: "m"}
	err := c.Validate()
	if err == nil || strings.Contains(err.Error(), "hunter2secret") {
		t.Errorf("Validate = %v, want an error without the password", err)
	}
}

func TestNewRejectsInvalidConfig(t *testing.T) {
	_, err := New(Config{}, nil)
	if err == nil || !strings.Contains(err.Error(), "LLM_MODEL") {
		t.Errorf("New(Config{}) = %v, want the problems listed", err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"fraction", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"zero", map[string]string{"Retry-After": "0"}, 0},
		{"negative", map[string]string{"Retry-After": "-3"}, 0},
		{"date", map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{"past date", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"milliseconds win", map[string]string{"Retry-After-Ms": "250", "Retry-After": "1"}, 250 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			if got := parseRetryAfter(h, now); got != tt.want {
				t.Errorf("parseRetryAfter = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	c, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", APIKey: "k", Model: "m",
		MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The draw returns the top of its window, to check the window.
	c.retry.Rand = func(n time.Duration) time.Duration { return n - 1 }
	tests := []struct {
		attempt    int
		retryAfter time.Duration
		want       time.Duration
	}{
		{1, 0, 100 * time.Millisecond},
		{2, 0, 200 * time.Millisecond},
		{3, 0, 400 * time.Millisecond},
		{5, 0, time.Second},
		{50, 0, time.Second},
		{1, 700 * time.Millisecond, 700 * time.Millisecond},
		{1, time.Hour, time.Second},
	}
	for _, tt := range tests {
		if got := c.retry.Delay(tt.attempt, tt.retryAfter); got != tt.want {
			t.Errorf("Delay(%d, %v) = %v, want %v", tt.attempt, tt.retryAfter, got, tt.want)
		}
	}
}

func TestClass(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{nil, ClassNone},
		{&StatusError{Code: 429}, ClassRateLimited},
		{&StatusError{Code: 502}, ClassServer},
		{&StatusError{Code: 401}, ClassPermanent},
		{&StatusError{Code: 422}, ClassClient},
		{&StatusError{Code: 408}, ClassTimeout},
		{errAttemptTimeout, ClassTimeout},
		{ErrMalformed, ClassMalformed},
		{ErrEmptyAnswer, ClassEmpty},
		{errors.New("connection reset by peer"), ClassNetwork},
	}
	for _, tt := range tests {
		if got := Class(tt.err); got != tt.want {
			t.Errorf("Class(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestStatusErrorMessage(t *testing.T) {
	e := &StatusError{Code: 401, Body: `{"error":{"message":"Incorrect API key provided: [redacted].","type":"invalid_request_error"}}`, hint: "check LLM_API_KEY"}
	want := "permanent model error: model endpoint answered 401 Unauthorized (check LLM_API_KEY): Incorrect API key provided: [redacted]."
	if e.Error() != want {
		t.Errorf("Error() = %q\nwant      %q", e.Error(), want)
	}
	long := &StatusError{Code: 500, Body: strings.Repeat("é", 400)}
	if n := len(long.Error()); n > 400 {
		t.Errorf("long body not clipped: %d bytes", n)
	}
}

func TestRedactor(t *testing.T) {
	r := redactor("sk-secret-123456")
	if got := r.String("key sk-secret-123456 rejected"); got != "key [redacted] rejected" {
		t.Errorf("String = %q", got)
	}
	// A placeholder key is not a secret and must not garble text.
	if got := redactor("x").String("extra text"); got != "extra text" {
		t.Errorf("short key redacted: %q", got)
	}
	inner := errors.New("dial sk-secret-123456")
	wrapped := r.Error(inner)
	if strings.Contains(wrapped.Error(), "sk-secret") || !errors.Is(wrapped, inner) {
		t.Errorf("Error = %v, want the key removed and the chain kept", wrapped)
	}
}
