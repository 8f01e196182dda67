package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/adapters/telegram"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/openai"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/state/postgres"
)

// config is every setting in docs/configuration.md's table. Defaults,
// then the YAML file (keys are the variable names in lower case), then the
// environment.
type config struct {
	LLMBaseURL     string
	LLMKey         string
	LLMModel       string
	LLMTimeout     time.Duration
	LLMTemperature *float32
	LLMMaxTokens   int
	LLMJSONMode    string
	LLMExtraBody   map[string]any
	Language       string
	SendUser       bool

	BotName    string
	PromptsDir string
	DBPath     string
	// DatabaseURL selects PostgreSQL (several replicas) instead of SQLite.
	DatabaseURL string
	LeaseTTL    time.Duration

	History int
	// Debounce and ContinueDelay are off when zero (AIRI_DEBOUNCE=0s).
	Debounce      time.Duration
	TickInterval  time.Duration
	MaxIterations int
	ContinueDelay time.Duration
	SleepMax      time.Duration
	Concurrency   int
	// Wakes bounds the wakes running at once; zero leaves the scheduler's
	// default (a multiple of Concurrency).
	Wakes     int
	Interrupt string
	// PromptMaxTokens bounds one model request (o200k estimate).
	PromptMaxTokens int
	// PromptCacheChannels bounds the channels whose rendered system
	// message and history token counts are kept between ticks.
	PromptCacheChannels int

	MaxSendChars int
	MaxSendParts int

	AllowChannels []string

	// Attention is the attention policy of group channels: the settings
	// of every channel and the overrides under channels: in the file.
	Attention attention.Policy
	// BudgetDay and ChannelBudgetDay are the daily token budgets (0: none);
	// ChannelBudgets override ChannelBudgetDay per channel.
	BudgetDay, ChannelBudgetDay int64
	ChannelBudgets              map[string]int64
	BudgetTZ                    *time.Location

	SatoriWSURL, SatoriAPIBaseURL, SatoriToken string
	TelegramToken, TelegramAPIBaseURL          string
	// TelegramWebhookURL switches Telegram from long polling to a webhook
	// that every replica serves on WebhookAddr.
	TelegramWebhookURL, TelegramWebhookSecret string
	WebhookAddr                               string

	AdminAddr, AdminToken string
	LogLevel, LogFormat   string
	// LogContent logs the text of every message received (off: only its length).
	LogContent bool

	// Admins are the platform-qualified user ids ("telegram:123") whose
	// "/airi ..." commands the runtime answers itself.
	Admins []string
	// TickRetention and MessageRetention are how long tick records and
	// messages are kept; zero keeps them forever.
	TickRetention, MessageRetention time.Duration
	// GiveUp is how long `airi chat` keeps trying a model that fails
	// before it exits.
	GiveUp time.Duration

	// Turn is the turn semantics the runtime runs under. It is not a
	// setting: empty means the scheduler's (a send ends the wake); replay
	// sets it from a session's header.
	Turn scheduler.Turn
}

// minPromptTokens is the smallest request budget accepted.
const minPromptTokens = 2000

// settingNames lists the variables, for the YAML file's keys.
var settingNames = []string{
	"LLM_API_BASE_URL", "LLM_API_KEY", "LLM_MODEL", "LLM_TIMEOUT", "LLM_TEMPERATURE", "LLM_MAX_TOKENS",
	"LLM_JSON_MODE", "LLM_EXTRA_BODY", "LLM_RESPONSE_LANGUAGE", "LLM_SEND_USER", "AIRI_BOT_NAME",
	"PROMPTS_DIR", "DB_PATH", "DATABASE_URL", "AIRI_LEASE_TTL", "AIRI_HISTORY", "AIRI_DEBOUNCE", "AIRI_TICK_INTERVAL", "AIRI_MAX_ITERATIONS",
	"AIRI_CONTINUE_DELAY", "AIRI_SLEEP_MAX", "AIRI_MODEL_CONCURRENCY", "AIRI_WAKE_CONCURRENCY", "AIRI_INTERRUPT", "AIRI_PROMPT_MAX_TOKENS", "AIRI_PROMPT_CACHE_CHANNELS", "AIRI_ALLOW_CHANNELS",
	"AIRI_MAX_SEND_CHARS", "AIRI_MAX_SEND_PARTS",
	"SATORI_WS_URL", "SATORI_API_BASE_URL", "SATORI_TOKEN", "TELEGRAM_BOT_TOKEN", "TELEGRAM_API_BASE_URL",
	"TELEGRAM_WEBHOOK_URL", "TELEGRAM_WEBHOOK_SECRET", "AIRI_WEBHOOK_ADDR",
	"AIRI_ADMIN_ADDR", "AIRI_ADMIN_TOKEN", "LOG_LEVEL", "LOG_FORMAT", "LOG_CONTENT",
	"AIRI_ADMINS", "AIRI_TICK_RETENTION", "AIRI_MESSAGE_RETENTION", "LLM_GIVE_UP",
	"AIRI_GROUP_MODE", "AIRI_ALIASES", "AIRI_AMBIENT_EVERY", "AIRI_AMBIENT_MIN_GAP", "AIRI_GROUP_COOLDOWN",
	"AIRI_SENDER_RATE", "AIRI_IGNORE_BOTS", "AIRI_BOT_REPLIES", "AIRI_BUDGET_TOKENS_DAY",
	"AIRI_CHANNEL_BUDGET_TOKENS_DAY", "AIRI_BUDGET_TZ",
}

// channelSettingNames are the settings a channel may override under
// channels: in the YAML file.
var channelSettingNames = []string{
	"AIRI_GROUP_MODE", "AIRI_ALIASES", "AIRI_AMBIENT_EVERY", "AIRI_AMBIENT_MIN_GAP", "AIRI_GROUP_COOLDOWN",
	"AIRI_SENDER_RATE", "AIRI_IGNORE_BOTS", "AIRI_BOT_REPLIES", "AIRI_CHANNEL_BUDGET_TOKENS_DAY",
}

// loadConfig reads the optional YAML file and the environment. Every
// problem found is reported, one per line.
func loadConfig(file string, getenv func(string) string) (config, error) {
	values := map[string]string{}
	channels := map[string]map[string]string{}
	if file != "" {
		raw, err := os.ReadFile(file)
		if err != nil {
			return config{}, fmt.Errorf("read config file: %w", err)
		}
		var doc map[string]any
		if err := yaml.Unmarshal(raw, &doc); err != nil {
			return config{}, fmt.Errorf("config file %s: %w", file, err)
		}
		known := map[string]bool{}
		for _, n := range settingNames {
			known[strings.ToLower(n)] = true
		}
		var errs []error
		seen := map[string]string{}
		for k, v := range doc {
			if strings.EqualFold(k, "channels") {
				if err := readChannels(v, channels); err != nil {
					errs = append(errs, fmt.Errorf("config file %s: %w", file, err))
				}
				continue
			}
			// Keys are the variable names in lower case; the names as
			// written in the environment are accepted too.
			lk := strings.ToLower(k)
			if !known[lk] {
				errs = append(errs, fmt.Errorf("config file %s: unknown key %q", file, k))
				continue
			}
			if prev, ok := seen[lk]; ok {
				errs = append(errs, fmt.Errorf("config file %s: keys %q and %q name the same setting", file, prev, k))
				continue
			}
			seen[lk] = k
			switch x := v.(type) {
			case map[string]any, []any:
				b, err := json.Marshal(x)
				if err != nil {
					errs = append(errs, fmt.Errorf("config file %s: key %q: %w", file, k, err))
					continue
				}
				values[strings.ToUpper(k)] = string(b)
			case nil:
			default:
				values[strings.ToUpper(k)] = fmt.Sprint(x)
			}
		}
		if err := errors.Join(errs...); err != nil {
			return config{}, err
		}
	}
	for _, n := range settingNames {
		if v, ok := lookup(getenv, n); ok {
			values[n] = v
		}
	}
	c, err := parseConfig(values)
	if err != nil {
		return c, err
	}
	return c, c.applyChannels(channels)
}

// readChannels reads the channels: block of the file: channel ids, each
// with settings named as the variables in lower case.
func readChannels(v any, out map[string]map[string]string) error {
	doc, ok := v.(map[string]any)
	if !ok {
		return errors.New("channels: want a map of channel ids to settings")
	}
	known := map[string]bool{}
	for _, n := range channelSettingNames {
		known[strings.ToLower(n)] = true
	}
	var errs []error
	for id, x := range doc {
		set, ok := x.(map[string]any)
		if !ok {
			errs = append(errs, fmt.Errorf("channels: %q: want a map of settings", id))
			continue
		}
		vals := map[string]string{}
		for k, v := range set {
			if !known[k] {
				errs = append(errs, fmt.Errorf("channels: %q: unknown or not per-channel key %q (per channel: %s)", id, k,
					strings.ToLower(strings.Join(channelSettingNames, ", "))))
				continue
			}
			if l, ok := v.([]any); ok {
				parts := make([]string, len(l))
				for i, p := range l {
					parts[i] = fmt.Sprint(p)
				}
				vals[strings.ToUpper(k)] = strings.Join(parts, ",")
				continue
			}
			vals[strings.ToUpper(k)] = fmt.Sprint(v)
		}
		out[id] = vals
	}
	return errors.Join(errs...)
}

// applyChannels validates and applies the per-channel overrides.
func (c *config) applyChannels(channels map[string]map[string]string) error {
	var errs []error
	for id, vals := range channels {
		set, budget, cerrs := parseAttention(vals, c.Attention.Default, c.ChannelBudgetDay)
		for _, err := range cerrs {
			errs = append(errs, fmt.Errorf("channels: %q: %w", id, err))
		}
		if c.Attention.Channels == nil {
			c.Attention.Channels = map[string]attention.Settings{}
		}
		c.Attention.Channels[id] = set
		if budget != c.ChannelBudgetDay {
			if c.ChannelBudgets == nil {
				c.ChannelBudgets = map[string]int64{}
			}
			c.ChannelBudgets[id] = budget
		}
	}
	return errors.Join(errs...)
}

// parseAttention reads the attention settings and the channel budget of
// v over base.
func parseAttention(v map[string]string, base attention.Settings, budget int64) (attention.Settings, int64, []error) {
	set := base
	var errs []error
	bad := func(name, val, want string) {
		errs = append(errs, fmt.Errorf("%s=%q: %s", name, val, want))
	}
	if x, ok := v["AIRI_GROUP_MODE"]; ok {
		set.Mode = attention.Mode(strings.ToLower(strings.TrimSpace(x)))
		if set.Mode.Validate() != nil {
			bad("AIRI_GROUP_MODE", x, "want ambient, addressed or all")
		}
	}
	if x, ok := v["AIRI_ALIASES"]; ok {
		set.Aliases = attention.NormalizeWords(strings.Split(x, ","))
	}
	if x, ok := v["AIRI_AMBIENT_EVERY"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil || n < 1 {
			bad("AIRI_AMBIENT_EVERY", x, "want a whole number of at least 1")
		} else {
			set.AmbientEvery = n
		}
	}
	for _, d := range []struct {
		name string
		dst  *time.Duration
	}{{"AIRI_AMBIENT_MIN_GAP", &set.AmbientMinGap}, {"AIRI_GROUP_COOLDOWN", &set.Cooldown}} {
		x, ok := v[d.name]
		if !ok {
			continue
		}
		dur, err := time.ParseDuration(strings.TrimSpace(x))
		if err != nil || dur < 0 {
			bad(d.name, x, "want a Go duration such as 0s, 30s or 10m")
			continue
		}
		*d.dst = dur
	}
	if x, ok := v["AIRI_SENDER_RATE"]; ok {
		r, err := attention.ParseRate(x)
		if err != nil {
			bad("AIRI_SENDER_RATE", x, "want messages/period such as 20/1m, or off")
		} else {
			set.SenderRate = r
		}
	}
	if x, ok := v["AIRI_IGNORE_BOTS"]; ok {
		b, err := strconv.ParseBool(strings.TrimSpace(x))
		if err != nil {
			bad("AIRI_IGNORE_BOTS", x, "want true or false")
		} else {
			set.IgnoreBots = b
		}
	}
	if x, ok := v["AIRI_BOT_REPLIES"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil || n < 0 {
			bad("AIRI_BOT_REPLIES", x, "want a whole number of at least 0")
		} else {
			set.BotReplies = n
		}
	}
	if x, ok := v["AIRI_CHANNEL_BUDGET_TOKENS_DAY"]; ok {
		n, err := parseTokens(x)
		if err != nil {
			bad("AIRI_CHANNEL_BUDGET_TOKENS_DAY", x, err.Error())
		} else {
			budget = n
		}
	}
	return set, budget, errs
}

// parseTokens reads a token count: a whole number, "none" or "0" for no budget.
func parseTokens(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "none") {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, errors.New("want a whole number of tokens, or none")
	}
	return n, nil
}

func lookup(getenv func(string) string, name string) (string, bool) {
	v := getenv(name)
	return v, v != ""
}

// Defaults of the settings the binary owns; every other default comes
// from the package that owns the setting (see defaultConfig).
const (
	defaultDBPath    = "./data/airi.db"
	defaultAdminAddr = "127.0.0.1:7070"
	defaultInterrupt = "cancel"
	defaultLogLevel  = "info"
	// defaultWebhookAddr is where Telegram webhook mode listens.
	defaultWebhookAddr = ":8443"
	// defaultTickRetention is how long the running bot keeps tick records.
	defaultTickRetention = 30 * 24 * time.Hour
	// defaultGiveUp is how long airi chat waits for a model that fails
	// every call before it gives up.
	defaultGiveUp = 2 * time.Minute
)

// defaultConfig is the configuration before the file and the environment.
// The configuration table of docs/configuration.md is checked against it.
func defaultConfig() config {
	return config{
		LLMTimeout: openai.DefaultTimeout, LLMMaxTokens: openai.DefaultMaxTokens, LLMJSONMode: openai.JSONModeOff,
		SendUser: true, DBPath: defaultDBPath, LeaseTTL: postgres.DefaultLeaseTTL,
		History: planner.DefaultHistoryLimit, Debounce: scheduler.DefaultDebounce, TickInterval: scheduler.DefaultTickInterval,
		MaxIterations: scheduler.DefaultMaxIterations, ContinueDelay: scheduler.DefaultContinueDelay,
		SleepMax: actions.DefaultSleepMax, Concurrency: scheduler.DefaultConcurrency, Interrupt: defaultInterrupt,
		PromptMaxTokens: planner.DefaultMaxTokens, PromptCacheChannels: planner.DefaultCachedChannels, MaxSendChars: actions.DefaultMaxSendChars, MaxSendParts: actions.DefaultMaxSendParts,
		TelegramAPIBaseURL: telegram.DefaultAPIBaseURL, AdminAddr: defaultAdminAddr, LogLevel: defaultLogLevel,
		WebhookAddr: defaultWebhookAddr, Attention: attention.Policy{Default: attention.Defaults()}, BudgetTZ: time.UTC,
		TickRetention: defaultTickRetention, GiveUp: defaultGiveUp,
	}
}

func parseConfig(v map[string]string) (config, error) {
	c := defaultConfig()
	var errs []error
	bad := func(name, val, want string) {
		errs = append(errs, fmt.Errorf("%s=%q: %s", name, val, want))
	}
	str := func(name string, dst *string) {
		if x, ok := v[name]; ok {
			*dst = strings.TrimSpace(x)
		}
	}
	dur := func(name string, dst *time.Duration, allowZero bool) {
		x, ok := v[name]
		if !ok {
			return
		}
		d, err := time.ParseDuration(strings.TrimSpace(x))
		if err != nil || d < 0 || (!allowZero && d == 0) {
			bad(name, x, "want a positive Go duration such as 800ms, 30s or 2m")
			return
		}
		*dst = d
	}
	num := func(name string, dst *int, min int) {
		x, ok := v[name]
		if !ok {
			return
		}
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil || n < min {
			bad(name, x, fmt.Sprintf("want a whole number of at least %d", min))
			return
		}
		*dst = n
	}
	boolean := func(name string, dst *bool) {
		x, ok := v[name]
		if !ok {
			return
		}
		b, err := strconv.ParseBool(strings.TrimSpace(x))
		if err != nil {
			bad(name, x, "want true or false")
			return
		}
		*dst = b
	}
	str("LLM_API_BASE_URL", &c.LLMBaseURL)
	str("LLM_API_KEY", &c.LLMKey)
	str("LLM_MODEL", &c.LLMModel)
	dur("LLM_TIMEOUT", &c.LLMTimeout, false)
	if x, ok := v["LLM_TEMPERATURE"]; ok && strings.TrimSpace(x) != "" {
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 32)
		if err != nil || f < 0 || f > 2 {
			bad("LLM_TEMPERATURE", x, "want a number from 0 to 2")
		} else {
			t := float32(f)
			c.LLMTemperature = &t
		}
	}
	num("LLM_MAX_TOKENS", &c.LLMMaxTokens, 1)
	str("LLM_JSON_MODE", &c.LLMJSONMode)
	switch c.LLMJSONMode {
	case openai.JSONModeOff, openai.JSONModeObject, openai.JSONModeSchema:
	default:
		bad("LLM_JSON_MODE", c.LLMJSONMode, "want off, object or schema")
	}
	if x, ok := v["LLM_EXTRA_BODY"]; ok && strings.TrimSpace(x) != "" {
		if err := json.Unmarshal([]byte(x), &c.LLMExtraBody); err != nil || c.LLMExtraBody == nil {
			bad("LLM_EXTRA_BODY", x, "want a JSON object such as {\"enable_thinking\": false}")
		}
	}
	str("LLM_RESPONSE_LANGUAGE", &c.Language)
	boolean("LLM_SEND_USER", &c.SendUser)
	str("AIRI_BOT_NAME", &c.BotName)
	str("PROMPTS_DIR", &c.PromptsDir)
	if c.PromptsDir != "" {
		if st, err := os.Stat(c.PromptsDir); err != nil || !st.IsDir() {
			bad("PROMPTS_DIR", c.PromptsDir, "want an existing directory of prompt templates")
		}
	}
	str("DB_PATH", &c.DBPath)
	str("DATABASE_URL", &c.DatabaseURL)
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		// The value may hold a password: never echo it.
		errs = append(errs, errors.New("DATABASE_URL: want a postgres:// URL such as postgres://airi@db:5432/airi (unset it to use SQLite at DB_PATH)"))
	}
	dur("AIRI_LEASE_TTL", &c.LeaseTTL, false)
	if c.LeaseTTL > 0 && c.LeaseTTL < time.Second {
		bad("AIRI_LEASE_TTL", c.LeaseTTL.String(), "want at least 1s")
	}
	num("AIRI_HISTORY", &c.History, 2)
	dur("AIRI_DEBOUNCE", &c.Debounce, true)
	dur("AIRI_TICK_INTERVAL", &c.TickInterval, false)
	num("AIRI_MAX_ITERATIONS", &c.MaxIterations, 1)
	dur("AIRI_CONTINUE_DELAY", &c.ContinueDelay, true)
	dur("AIRI_SLEEP_MAX", &c.SleepMax, false)
	num("AIRI_MODEL_CONCURRENCY", &c.Concurrency, 1)
	// Empty leaves the default, which follows AIRI_MODEL_CONCURRENCY.
	if strings.TrimSpace(v["AIRI_WAKE_CONCURRENCY"]) != "" {
		num("AIRI_WAKE_CONCURRENCY", &c.Wakes, 1)
	}
	str("AIRI_INTERRUPT", &c.Interrupt)
	if c.Interrupt != "cancel" && c.Interrupt != "finish" {
		bad("AIRI_INTERRUPT", c.Interrupt, "want cancel or finish")
	}
	num("AIRI_MAX_SEND_CHARS", &c.MaxSendChars, 1)
	num("AIRI_MAX_SEND_PARTS", &c.MaxSendParts, 1)
	// The system message alone takes about a thousand tokens; below
	// minPromptTokens no history or new message would fit beside it.
	num("AIRI_PROMPT_MAX_TOKENS", &c.PromptMaxTokens, minPromptTokens)
	num("AIRI_PROMPT_CACHE_CHANNELS", &c.PromptCacheChannels, 1)
	if x, ok := v["AIRI_ALLOW_CHANNELS"]; ok {
		for _, id := range strings.Split(x, ",") {
			if id = strings.TrimSpace(id); id != "" {
				c.AllowChannels = append(c.AllowChannels, id)
			}
		}
	}
	set, chBudget, aerrs := parseAttention(v, c.Attention.Default, 0)
	c.Attention.Default, c.ChannelBudgetDay = set, chBudget
	errs = append(errs, aerrs...)
	if x, ok := v["AIRI_BUDGET_TOKENS_DAY"]; ok {
		n, err := parseTokens(x)
		if err != nil {
			bad("AIRI_BUDGET_TOKENS_DAY", x, err.Error())
		}
		c.BudgetDay = n
	}
	if x, ok := v["AIRI_BUDGET_TZ"]; ok {
		loc, err := time.LoadLocation(strings.TrimSpace(x))
		if err != nil {
			bad("AIRI_BUDGET_TZ", x, "want a time zone name such as UTC or Europe/Berlin")
		} else {
			c.BudgetTZ = loc
		}
	}
	str("SATORI_WS_URL", &c.SatoriWSURL)
	str("SATORI_API_BASE_URL", &c.SatoriAPIBaseURL)
	str("SATORI_TOKEN", &c.SatoriToken)
	str("TELEGRAM_BOT_TOKEN", &c.TelegramToken)
	str("TELEGRAM_API_BASE_URL", &c.TelegramAPIBaseURL)
	str("TELEGRAM_WEBHOOK_URL", &c.TelegramWebhookURL)
	str("TELEGRAM_WEBHOOK_SECRET", &c.TelegramWebhookSecret)
	str("AIRI_WEBHOOK_ADDR", &c.WebhookAddr)
	errs = append(errs, c.checkWebhook()...)
	str("AIRI_ADMIN_ADDR", &c.AdminAddr)
	str("AIRI_ADMIN_TOKEN", &c.AdminToken)
	str("LOG_LEVEL", &c.LogLevel)
	str("LOG_FORMAT", &c.LogFormat)
	boolean("LOG_CONTENT", &c.LogContent)
	if x, ok := v["AIRI_ADMINS"]; ok {
		for _, id := range strings.Split(x, ",") {
			id = strings.TrimSpace(id)
			if id == "" {
				continue
			}
			if p, u, ok := strings.Cut(id, ":"); !ok || p == "" || u == "" {
				bad("AIRI_ADMINS", id, "want platform-qualified user ids such as telegram:123456789,qq:10001")
				continue
			}
			c.Admins = append(c.Admins, id)
		}
	}
	retention := func(name string, dst *time.Duration) {
		x, ok := v[name]
		if !ok {
			return
		}
		d, err := parseRetention(x)
		if err != nil {
			bad(name, x, "want a duration such as 30d, 12h or 90m, or forever")
			return
		}
		*dst = d
	}
	retention("AIRI_TICK_RETENTION", &c.TickRetention)
	retention("AIRI_MESSAGE_RETENTION", &c.MessageRetention)
	dur("LLM_GIVE_UP", &c.GiveUp, false)
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		bad("LOG_LEVEL", c.LogLevel, "want debug, info, warn or error")
	}
	switch c.LogFormat {
	case "", "json", "console":
	default:
		bad("LOG_FORMAT", c.LogFormat, "want json or console")
	}
	for _, u := range []struct{ name, val, example string }{
		{"LLM_API_BASE_URL", c.LLMBaseURL, "https://api.openai.com/v1 or http://localhost:11434/v1"},
		{"SATORI_WS_URL", c.SatoriWSURL, "ws://127.0.0.1:5140/satori/v1/events"},
		{"SATORI_API_BASE_URL", c.SatoriAPIBaseURL, "http://127.0.0.1:5140/satori/v1"},
		{"TELEGRAM_API_BASE_URL", c.TelegramAPIBaseURL, "https://api.telegram.org"},
	} {
		if u.val == "" {
			continue
		}
		p, err := url.Parse(u.val)
		if err != nil || p.Scheme == "" || p.Host == "" {
			bad(u.name, u.val, "want an absolute URL such as "+u.example)
		}
	}
	return c, errors.Join(errs...)
}

// requireModel reports the settings a command that calls the model lacks.
func (c config) requireModel() error {
	var errs []error
	if c.LLMBaseURL == "" {
		errs = append(errs, errors.New("LLM_API_BASE_URL is not set: point it at an OpenAI-compatible endpoint, e.g. https://api.openai.com/v1 (with LLM_API_KEY) or a local Ollama at http://localhost:11434/v1"))
	}
	if c.LLMModel == "" {
		errs = append(errs, errors.New("LLM_MODEL is not set: name the model to use, e.g. gpt-4o-mini or qwen2.5:7b"))
	}
	return errors.Join(errs...)
}

// webhookSecretRe is what the Bot API accepts as a webhook's secret token.
var webhookSecretRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,256}$`)

// checkWebhook validates the webhook settings. The URL must be https,
// which Telegram requires; plain http is accepted only for a loopback
// host (a local Bot API server, tests). The secret is never echoed.
func (c config) checkWebhook() []error {
	var errs []error
	if c.TelegramWebhookURL == "" {
		if c.TelegramWebhookSecret != "" {
			errs = append(errs, errors.New("TELEGRAM_WEBHOOK_SECRET is set without TELEGRAM_WEBHOOK_URL: set both for webhook mode, or neither for long polling"))
		}
		return errs
	}
	u, err := url.Parse(c.TelegramWebhookURL)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		errs = append(errs, fmt.Errorf("TELEGRAM_WEBHOOK_URL=%q: want an https URL such as https://bot.example.com/telegram", c.TelegramWebhookURL))
	case u.Scheme == "http" && !loopbackHost(u.Hostname()):
		errs = append(errs, fmt.Errorf("TELEGRAM_WEBHOOK_URL=%q: Telegram posts only to https URLs (http is accepted for 127.0.0.1 and localhost alone)", c.TelegramWebhookURL))
	}
	if c.TelegramToken == "" {
		errs = append(errs, errors.New("TELEGRAM_WEBHOOK_URL is set without TELEGRAM_BOT_TOKEN"))
	}
	switch {
	case c.TelegramWebhookSecret == "":
		errs = append(errs, errors.New("TELEGRAM_WEBHOOK_SECRET is not set: a webhook needs a secret token, checked on every request (1-256 characters A-Z, a-z, 0-9, _ and -)"))
	case !webhookSecretRe.MatchString(c.TelegramWebhookSecret):
		errs = append(errs, errors.New("TELEGRAM_WEBHOOK_SECRET: want 1-256 characters A-Z, a-z, 0-9, _ and - (what the Bot API accepts)"))
	}
	if _, _, err := net.SplitHostPort(c.WebhookAddr); err != nil {
		errs = append(errs, fmt.Errorf("AIRI_WEBHOOK_ADDR=%q: want host:port such as :8443", c.WebhookAddr))
	}
	return errs
}

// loopbackHost reports whether host names this machine.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// parseRetention reads a retention period: a Go duration ("12h", "90m"),
// a number of days ("30d"), or "forever" (also "0" or "off"), which is 0.
func parseRetention(s string) (time.Duration, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	switch s {
	case "forever", "0", "off", "never":
		return 0, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("retention %q: want a positive number of days", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("retention %q: want a positive duration", s)
	}
	return d, nil
}
