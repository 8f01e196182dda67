package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap/zapcore"
)

// JSON modes of Config.JSONMode.
const (
	JSONModeOff    = "off"
	JSONModeObject = "object"
	JSONModeSchema = "schema"
)

// Defaults applied by New to zero fields.
const (
	DefaultTimeout     = 60 * time.Second
	DefaultMaxTokens   = 1024
	DefaultMaxAttempts = 4
	DefaultMinBackoff  = 500 * time.Millisecond
	DefaultMaxBackoff  = 20 * time.Second
)

// Config configures a Client. Zero fields take the defaults above; the
// comments name the environment variable cmd/airi reads each one from.
type Config struct {
	// BaseURL is the API root (LLM_API_BASE_URL), for example
	// https://api.openai.com/v1 or http://localhost:11434/v1; the client
	// appends /chat/completions.
	BaseURL string
	// APIKey is sent as a bearer token (LLM_API_KEY) and never logged.
	// It may be empty for local servers that need none.
	APIKey string
	// Model is the model name (LLM_MODEL).
	Model string
	// Timeout bounds one attempt (LLM_TIMEOUT), default 60s.
	Timeout time.Duration
	// Temperature is sent only when set (LLM_TEMPERATURE); nil leaves the
	// provider's default.
	Temperature *float32
	// MaxTokens bounds the answer (LLM_MAX_TOKENS), default 1024. It is
	// sent as max_completion_tokens to OpenAI reasoning models (o1, o3,
	// o4, gpt-5 and later) and as max_tokens to everything else.
	MaxTokens int
	// JSONMode is "off" (or empty), "object" (response_format json_object)
	// or "schema" (response_format json_schema with Schema) (LLM_JSON_MODE).
	JSONMode string
	// Schema is the JSON schema of one action, required by JSONMode
	// "schema"; the caller builds it from the action catalog.
	Schema json.RawMessage
	// ExtraBody is merged into every request body (LLM_EXTRA_BODY): its
	// top-level keys replace the client's own, and a null value removes a
	// field the client would send (for example "max_tokens": null).
	ExtraBody map[string]any
	// MaxAttempts bounds the tries of one call, default 4.
	MaxAttempts int
	// MinBackoff and MaxBackoff bound the wait between attempts (full
	// jitter, doubling from MinBackoff); MaxBackoff also caps Retry-After.
	MinBackoff, MaxBackoff time.Duration
	// HTTPClient, when set, is used for its transport, timeout and
	// cookie jar; the client wraps its transport.
	HTTPClient *http.Client
}

// String describes the configuration without the API key, so that
// printing a Config never shows it.
func (c Config) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("openai.Config{BaseURL:%q APIKey:%s Model:%q Timeout:%s MaxTokens:%d JSONMode:%q ExtraBody:%d fields MaxAttempts:%d}",
		redactURL(c.BaseURL), key, c.Model, c.Timeout, c.MaxTokens, c.JSONMode, len(c.ExtraBody), c.MaxAttempts)
}

// GoString is String, for %#v.
func (c Config) GoString() string { return c.String() }

// MarshalLogObject writes the configuration to a zap log line without the
// API key.
func (c Config) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddString("base_url", redactURL(c.BaseURL))
	enc.AddBool("api_key_set", c.APIKey != "")
	enc.AddString("model", c.Model)
	enc.AddDuration("timeout", c.Timeout)
	if c.Temperature != nil {
		enc.AddFloat32("temperature", *c.Temperature)
	}
	enc.AddInt("max_tokens", c.MaxTokens)
	enc.AddString("json_mode", c.JSONMode)
	keys := make([]string, 0, len(c.ExtraBody))
	for k := range c.ExtraBody {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	enc.AddString("extra_body_fields", strings.Join(keys, ","))
	enc.AddInt("max_attempts", c.MaxAttempts)
	return nil
}

// Validate reports every problem of the configuration, one error per
// problem, each naming the environment variable to fix.
func (c Config) Validate() error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	switch u, err := url.Parse(strings.TrimSpace(c.BaseURL)); {
	case strings.TrimSpace(c.BaseURL) == "":
		add("LLM_API_BASE_URL is required (for example https://api.openai.com/v1 or http://localhost:11434/v1)")
	case err != nil:
		add("LLM_API_BASE_URL %q is not a URL: %v", redactURL(c.BaseURL), err)
	case u.Scheme != "http" && u.Scheme != "https":
		add("LLM_API_BASE_URL %q must start with http:// or https://", redactURL(c.BaseURL))
	case u.Host == "":
		add("LLM_API_BASE_URL %q has no host", redactURL(c.BaseURL))
	case strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/chat/completions"):
		add("LLM_API_BASE_URL %q must be the API root without /chat/completions", redactURL(c.BaseURL))
	}
	if strings.TrimSpace(c.Model) == "" {
		add("LLM_MODEL is required")
	}
	if c.Timeout < 0 {
		add("LLM_TIMEOUT %s must not be negative", c.Timeout)
	}
	if c.Temperature != nil && (*c.Temperature < 0 || *c.Temperature > 2) {
		add("LLM_TEMPERATURE %g must be between 0 and 2", *c.Temperature)
	}
	if c.MaxTokens < 0 {
		add("LLM_MAX_TOKENS %d must not be negative", c.MaxTokens)
	}
	switch c.JSONMode {
	case "", JSONModeOff, JSONModeObject:
	case JSONModeSchema:
		var obj map[string]json.RawMessage
		if len(c.Schema) == 0 {
			add("LLM_JSON_MODE=schema needs the action schema, and none was given")
		} else if err := json.Unmarshal(c.Schema, &obj); err != nil {
			add("LLM_JSON_MODE=schema: the action schema is not a JSON object: %v", err)
		}
	default:
		add("LLM_JSON_MODE %q must be off, object or schema", c.JSONMode)
	}
	for k, v := range c.ExtraBody {
		switch k {
		case "messages", "stream":
			add("LLM_EXTRA_BODY may not set %q", k)
			continue
		}
		if _, err := json.Marshal(v); err != nil {
			add("LLM_EXTRA_BODY field %q cannot be encoded as JSON: %v", k, err)
		}
	}
	if c.MaxAttempts < 0 {
		add("model max attempts %d must not be negative", c.MaxAttempts)
	}
	if c.MinBackoff < 0 || c.MaxBackoff < 0 {
		add("model backoff must not be negative")
	}
	if c.MinBackoff > 0 && c.MaxBackoff > 0 && c.MinBackoff > c.MaxBackoff {
		add("model min backoff %s exceeds max backoff %s", c.MinBackoff, c.MaxBackoff)
	}
	return errors.Join(errs...)
}

// withDefaults fills zero fields.
func (c Config) withDefaults() Config {
	if c.JSONMode == "" {
		c.JSONMode = JSONModeOff
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxTokens == 0 {
		c.MaxTokens = DefaultMaxTokens
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.MinBackoff == 0 {
		c.MinBackoff = DefaultMinBackoff
	}
	if c.MaxBackoff == 0 {
		c.MaxBackoff = max(DefaultMaxBackoff, c.MinBackoff)
	}
	c.BaseURL = strings.TrimRight(strings.TrimSpace(c.BaseURL), "/")
	return c
}

// redactURL drops a password from a URL before it is shown.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}

// reasoningModel reports whether go-openai treats the model name as an
// OpenAI reasoning model, for which it refuses max_tokens locally.
func reasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "gpt-6"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}
