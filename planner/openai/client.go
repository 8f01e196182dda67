// Package openai is the planner's way to the model: a planner.Model that
// speaks the OpenAI Chat Completions API to any compatible endpoint
// (OpenAI, DeepSeek, OpenRouter, Ollama, vLLM, llama.cpp), built on
// github.com/sashabaranov/go-openai.
//
// One call is tried up to Config.MaxAttempts times, each bounded by
// Config.Timeout. 429, 5xx, connection failures, timeouts and malformed
// bodies are retried after an exponential backoff with full jitter, or
// after the endpoint's Retry-After when that is longer; both are capped by
// Config.MaxBackoff. 400, 401, 402, 403, 404 and 405 are not retried: they
// give a *StatusError that wraps planner.ErrPermanent and names the setting
// to check. Cancelling the context stops an attempt or a wait at once.
//
// go-openai drops response headers on its error path and cannot add
// arbitrary body fields, so the client wraps the HTTP transport: the
// transport merges Config.ExtraBody (and the temperature, which go-openai
// would omit at zero) into each body, and records the status, headers and
// body of each response.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"
	"go.uber.org/zap"

	"github.com/airi-go/airi/internal/backoff"
	httptransport "github.com/airi-go/airi/internal/transport"
	"github.com/airi-go/airi/planner"
)

// Client calls an OpenAI-compatible Chat Completions endpoint. It is safe
// for concurrent use.
type Client struct {
	cfg    Config
	api    *goopenai.Client
	hc     *http.Client
	merge  map[string]json.RawMessage
	format *goopenai.ChatCompletionResponseFormat
	redact redactor
	log    *zap.Logger
	now    func() time.Time
	// retry draws the wait between attempts; tests may set its Rand.
	retry backoff.Policy
	// wait sleeps between attempts until d passes or ctx is done; tests
	// may replace it.
	wait func(ctx context.Context, d time.Duration) error
}

var _ planner.Model = (*Client)(nil)

// New checks cfg, fills its defaults and returns a client. The logger is
// named "model"; nil discards logs.
func New(cfg Config, logger *zap.Logger) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("configure model client: %w", err)
	}
	cfg = cfg.withDefaults()
	if logger == nil {
		logger = zap.NewNop()
	}

	fields := make(map[string]any, len(cfg.ExtraBody)+1)
	if cfg.Temperature != nil {
		// Sent through the transport: go-openai omits a zero temperature
		// and refuses any temperature for reasoning model names.
		fields["temperature"] = *cfg.Temperature
	}
	for k, v := range cfg.ExtraBody {
		fields[k] = v
	}
	merge, err := encodeMerge(fields)
	if err != nil {
		return nil, fmt.Errorf("configure model client: LLM_EXTRA_BODY: %w", err)
	}

	hc := &http.Client{}
	if cfg.HTTPClient != nil {
		*hc = *cfg.HTTPClient
	}
	base := hc.Transport
	if base == nil {
		// An own pool, so that CloseIdleConnections touches only ours.
		// All calls go to one host, as many at once as there are model
		// slots.
		base = httptransport.New()
	}
	hc.Transport = &transport{base: base}

	oc := goopenai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = hc

	c := &Client{
		cfg:    cfg,
		api:    goopenai.NewClientWithConfig(oc),
		hc:     hc,
		merge:  merge,
		redact: redactor(cfg.APIKey),
		log:    logger.Named("model"),
		now:    time.Now,
		retry:  backoff.Policy{Min: cfg.MinBackoff, Max: cfg.MaxBackoff, Jitter: backoff.FullJitter},
		wait:   backoff.Sleep,
	}
	switch cfg.JSONMode {
	case JSONModeObject:
		c.format = &goopenai.ChatCompletionResponseFormat{Type: goopenai.ChatCompletionResponseFormatTypeJSONObject}
	case JSONModeSchema:
		c.format = &goopenai.ChatCompletionResponseFormat{
			Type: goopenai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &goopenai.ChatCompletionResponseFormatJSONSchema{
				Name:        "action",
				Description: "One action of the agent.",
				Schema:      json.RawMessage(cfg.Schema),
				// Not strict: OpenAI's strict mode forbids optional
				// properties, which the action schemas have.
				Strict: false,
			},
		}
	}
	return c, nil
}

// CloseIdleConnections closes the client's idle keep-alive connections,
// for a clean shutdown.
func (c *Client) CloseIdleConnections() { c.hc.CloseIdleConnections() }

// Complete sends one request and returns the answer. Content is the raw
// text; <think> blocks and reasoning fields are also collected in
// Reasoning. Latency covers the whole call, waits included; Attempts
// counts the requests sent. On error the returned Response still carries
// Attempts and Latency (and, for an empty answer, Usage and Reasoning).
func (c *Client) Complete(ctx context.Context, req planner.Request) (planner.Response, error) {
	start := c.now()
	log := c.log.With(zap.String("channel", req.ChannelID))
	body := c.request(req)

	var resp planner.Response
	var lastErr error
	for attempt := 1; attempt <= c.cfg.MaxAttempts; attempt++ {
		resp.Attempts = attempt
		r, err := c.attempt(ctx, body)
		if err == nil {
			r.Attempts = attempt
			r.Latency = c.now().Sub(start)
			log.Debug("model answered",
				zap.Int("attempt", attempt),
				zap.Duration("latency", r.Latency),
				zap.Int("prompt_tokens", r.Usage.PromptTokens),
				zap.Int("completion_tokens", r.Usage.CompletionTokens),
				zap.Int("cached_tokens", r.Usage.CachedTokens))
			return r, nil
		}
		if errors.Is(err, ErrEmptyAnswer) {
			r.Attempts = attempt
			r.Latency = c.now().Sub(start)
			log.Warn("model answer was empty", zap.Int("attempt", attempt), zap.Error(err))
			return r, fmt.Errorf("model call: %w", err)
		}
		lastErr = err
		if ctx.Err() != nil {
			resp.Latency = c.now().Sub(start)
			return resp, fmt.Errorf("model call: %w", canceled(ctx))
		}
		if !retryable(err) {
			resp.Latency = c.now().Sub(start)
			// The caller reports the returned error; logging it here too
			// would print every failure twice.
			log.Debug("model call failed", zap.Int("attempt", attempt),
				zap.String("class", Class(err)), zap.Error(err))
			return resp, fmt.Errorf("model call: %w", err)
		}
		if attempt == c.cfg.MaxAttempts {
			break
		}
		var retryAfter time.Duration
		if se := (*StatusError)(nil); errors.As(err, &se) {
			retryAfter = se.RetryAfter
		}
		wait := c.retry.Delay(attempt, retryAfter)
		// Retries are detail: the caller logs the outcome of the call.
		log.Debug("model call failed, retrying",
			zap.Int("attempt", attempt),
			zap.String("class", Class(err)),
			zap.Duration("wait", wait),
			zap.Error(err))
		// The caller may give back what it holds while the call waits.
		if err := planner.Away(ctx, func() error { return c.wait(ctx, wait) }); err != nil {
			resp.Latency = c.now().Sub(start)
			return resp, fmt.Errorf("model call, waiting to retry: %w", err)
		}
	}
	resp.Latency = c.now().Sub(start)
	log.Debug("model call failed", zap.Int("attempts", resp.Attempts),
		zap.String("class", Class(lastErr)), zap.Error(lastErr))
	return resp, fmt.Errorf("model call failed after %d attempts: %w", resp.Attempts, lastErr)
}

// request builds the go-openai request shared by all attempts of a call.
func (c *Client) request(req planner.Request) goopenai.ChatCompletionRequest {
	msgs := make([]goopenai.ChatCompletionMessage, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = chatMessage(m)
	}
	r := goopenai.ChatCompletionRequest{
		Model:          c.cfg.Model,
		Messages:       msgs,
		User:           req.User,
		ResponseFormat: c.format,
	}
	if reasoningModel(c.cfg.Model) {
		r.MaxCompletionTokens = c.cfg.MaxTokens
	} else {
		// max_tokens, not max_completion_tokens: most compatible servers
		// (Ollama, vLLM, llama.cpp, older gateways) know only the former.
		r.MaxTokens = c.cfg.MaxTokens //lint:ignore SA1019 the field compatible servers understand
	}
	return r
}

// attempt sends one request.
func (c *Client) attempt(ctx context.Context, body goopenai.ChatCompletionRequest) (planner.Response, error) {
	actx, cancel := context.WithTimeoutCause(ctx, c.cfg.Timeout, errAttemptTimeout)
	defer cancel()
	ex := &exchange{merge: c.merge}
	out, err := c.api.CreateChatCompletion(withExchange(actx, ex), body)
	if err != nil {
		return planner.Response{}, c.classify(ctx, actx, ex, err)
	}
	return c.answer(out, ex)
}

// classify turns a go-openai error into one of the package's errors.
func (c *Client) classify(ctx, actx context.Context, ex *exchange, err error) error {
	switch {
	case ctx.Err() != nil:
		return canceled(ctx)
	case errors.Is(context.Cause(actx), errAttemptTimeout):
		return fmt.Errorf("%w after %s (LLM_TIMEOUT)", errAttemptTimeout, c.cfg.Timeout)
	}
	if ex.status != 0 && (ex.status < 200 || ex.status > 299) {
		se := &StatusError{
			Code:       ex.status,
			RetryAfter: parseRetryAfter(ex.header, c.now()),
			Body:       clip(c.redact.String(string(ex.body)), 4096),
		}
		se.hint = statusHint(ex.status, c.cfg.Model, redactURL(c.cfg.BaseURL), c.cfg.APIKey != "")
		if se.ContextLength() {
			se.hint = "the request is longer than the model's context; lower AIRI_PROMPT_MAX_TOKENS to fit it"
		}
		return se
	}
	if ex.status != 0 {
		// A 2xx whose body go-openai could not decode.
		return c.malformed(ex, err)
	}
	if errors.Is(err, ErrMalformed) {
		return err
	}
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return fmt.Errorf("%w: cannot resolve the host of LLM_API_BASE_URL %q: %v",
			planner.ErrPermanent, redactURL(c.cfg.BaseURL), c.redact.String(dns.Error()))
	}
	var ue *url.Error
	if !ex.sent || (errors.As(err, &ue) && strings.Contains(ue.Err.Error(), "unsupported protocol scheme")) {
		// go-openai refused the request before sending it.
		return fmt.Errorf("%w: the request could not be sent (check LLM_MODEL, LLM_MAX_TOKENS, LLM_JSON_MODE): %v",
			planner.ErrPermanent, c.redact.String(err.Error()))
	}
	return c.redact.Error(fmt.Errorf("connect to LLM_API_BASE_URL %q: %w", redactURL(c.cfg.BaseURL), err))
}

func (c *Client) malformed(ex *exchange, err error) error {
	hint := ""
	ct := ex.header.Get("Content-Type")
	if strings.Contains(ct, "html") || strings.HasPrefix(strings.TrimSpace(string(ex.body)), "<") {
		hint = fmt.Sprintf(" (an HTML page: check that LLM_API_BASE_URL %q is the API root, such as http://localhost:11434/v1)", redactURL(c.cfg.BaseURL))
	}
	detail := ""
	if err != nil {
		detail = ": " + c.redact.String(err.Error())
	}
	return fmt.Errorf("%w: the endpoint answered %d with a body that is not Chat Completions JSON%s%s",
		ErrMalformed, ex.status, hint, detail)
}

// answer reads a decoded success response.
func (c *Client) answer(out goopenai.ChatCompletionResponse, ex *exchange) (planner.Response, error) {
	extra := decodeExtras(ex.body)
	if len(out.Choices) == 0 {
		if msg := errorMessageOf(ex.body); msg != "" {
			// Some gateways answer 200 with an error object.
			return planner.Response{}, fmt.Errorf("%w: the endpoint answered 200 with an error: %s",
				ErrMalformed, clip(c.redact.String(msg), 300))
		}
		return planner.Response{}, c.malformed(ex, errors.New("no choices"))
	}
	choice := out.Choices[0]
	msg := choice.Message
	content := msg.Content
	if strings.TrimSpace(content) == "" && len(msg.ToolCalls) > 0 {
		// A model that answered through a tool call: hand the parser the
		// call's shape, which it accepts.
		tc, _ := json.Marshal(map[string]string{
			"name":      msg.ToolCalls[0].Function.Name,
			"arguments": msg.ToolCalls[0].Function.Arguments,
		})
		content = string(tc)
	}
	thoughts, rest, open := splitThink(content)
	var reasoning []string
	for _, r := range []string{msg.ReasoningContent, extra.firstReasoning(), thoughts} {
		if r = strings.TrimSpace(r); r != "" && !containsString(reasoning, r) {
			reasoning = append(reasoning, r)
		}
	}
	usage := out.Usage
	r := planner.Response{
		Content:   content,
		Reasoning: strings.Join(reasoning, "\n\n"),
		// The body decoded whole, so the answer ended where the provider
		// says it did.
		FinishReason: string(choice.FinishReason),
		Ended:        true,
	}
	r.Usage.PromptTokens = usage.PromptTokens
	r.Usage.CompletionTokens = usage.CompletionTokens
	if usage.PromptTokensDetails != nil {
		r.Usage.CachedTokens = usage.PromptTokensDetails.CachedTokens
	}
	if r.Usage.CachedTokens == 0 {
		r.Usage.CachedTokens = extra.Usage.PromptCacheHitTokens
	}
	if strings.TrimSpace(rest) == "" {
		return r, c.emptyError(choice, open, msg.Refusal, r.Reasoning != "")
	}
	return r, nil
}

func (c *Client) emptyError(choice goopenai.ChatCompletionChoice, open bool, refusal string, thought bool) error {
	switch {
	case refusal != "":
		return fmt.Errorf("%w: the model refused: %s", ErrEmptyAnswer, clip(refusal, 300))
	case open || (thought && choice.FinishReason == goopenai.FinishReasonLength):
		return fmt.Errorf("%w: the answer ran out of tokens while thinking, before any JSON action (raise LLM_MAX_TOKENS or turn thinking off through LLM_EXTRA_BODY)", ErrEmptyAnswer)
	case thought:
		return fmt.Errorf("%w: it held only <think> reasoning and no JSON action", ErrEmptyAnswer)
	case choice.FinishReason == goopenai.FinishReasonContentFilter:
		return fmt.Errorf("%w: the provider's content filter removed it", ErrEmptyAnswer)
	}
	return fmt.Errorf("%w: no text and no JSON action", ErrEmptyAnswer)
}

func (e extras) firstReasoning() string {
	if len(e.Choices) == 0 {
		return ""
	}
	return e.Choices[0].Message.Reasoning
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// retryable reports whether another attempt may succeed.
func retryable(err error) bool {
	var se *StatusError
	switch {
	case errors.As(err, &se):
		return se.Temporary()
	case errors.Is(err, planner.ErrPermanent):
		return false
	case errors.Is(err, ErrEmptyAnswer):
		return false
	}
	// Timeouts, resets, refused connections, malformed bodies.
	return true
}

// canceled reports a done context: its error (context.Canceled or
// DeadlineExceeded) and, when the canceller gave one, its cause, both
// matchable with errors.Is. It is nil while ctx is alive.
func canceled(ctx context.Context) error {
	err := ctx.Err()
	if err == nil {
		return nil
	}
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("canceled: %w (%w)", err, cause)
	}
	return fmt.Errorf("canceled: %w", err)
}
