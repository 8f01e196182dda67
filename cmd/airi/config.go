package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"time"

	"github.com/airi-go/airi/internal/settings"
	"github.com/airi-go/airi/media"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/tools"
)

// config holds every setting of settingsTable, each in the field its
// entry names. Defaults, then the YAML file (keys are the variable names
// in lower case), then the environment.
type config struct {
	LLMBaseURL     string
	LLMKey         string
	LLMModel       string
	LLMTimeout     time.Duration
	LLMTemperature *float32
	LLMMaxTokens   int
	LLMJSONMode    string
	LLMExtraBody   map[string]any
	// Vision and Speech are the models that describe images and
	// transcribe voice notes; Media what the model is shown of them, and
	// MediaHosts where Satori files may come from.
	Vision, Speech runtime.Endpoint
	Media          media.Config
	MediaHosts     []string
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
	// TZ is the reminders' time zone, ChannelTZ a channel's own (airi_tz
	// under channels: in the file); ScheduleMax and ScheduleMaxPerUser cap
	// pending reminders per chat and per person.
	TZ                              *time.Location
	ChannelTZ                       map[string]*time.Location
	ScheduleMax, ScheduleMaxPerUser int

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
	// ToolTimeout bounds one MCP tool call; Tools are the servers and
	// the rules of the file's mcp_servers: and tools: keys.
	ToolTimeout time.Duration
	Tools       tools.Config

	// Turn is the turn semantics the runtime runs under. It is not a
	// setting: empty means the scheduler's (a send ends the wake); replay
	// sets it from a session's header.
	Turn scheduler.Turn
}

// defaultConfig is the configuration before the file and the
// environment: every setting of the table at its default.
func defaultConfig() config {
	c := config{Attention: attention.Policy{Default: attention.Defaults()}}
	for _, s := range settingsTable {
		if s.def == "" {
			continue
		}
		if err := s.apply(&c, settings.FromText(s.def)); err != nil {
			panic(fmt.Sprintf("settings table: the default of %s is refused: %v", s.name, err))
		}
	}
	return c
}

// parseConfig reads settings given as environment text, by name, over
// the defaults, and validates the result.
func parseConfig(v map[string]string) (config, error) {
	vals := make(map[string]value, len(v))
	for name, text := range v {
		vals[name] = settings.FromText(text)
	}
	return buildConfig(vals)
}

// buildConfig parses the values given, each by its entry of the settings
// table, over the defaults, then runs the checks across settings. Every
// problem is reported, one per line, in the order of the table.
func buildConfig(vals map[string]value) (config, error) {
	c := defaultConfig()
	var errs []error
	for _, s := range settingsTable {
		if v, ok := vals[s.name]; ok {
			if err := s.apply(&c, v); err != nil {
				errs = append(errs, err)
			}
		}
	}
	errs = append(errs, c.checkWebhook()...)
	return c, errors.Join(errs...)
}

// loadConfig reads the optional YAML file and the environment: defaults,
// then the file, then the environment, which wins. Every problem found is
// reported, one per line.
func loadConfig(file string, getenv func(string) string) (config, error) {
	vals := map[string]value{}
	var channels []channelValues
	var toolsCfg tools.Config
	if file != "" {
		f, err := readConfigFile(file)
		if err != nil {
			return config{}, err
		}
		vals, channels, toolsCfg = f.settings, f.channels, f.tools
	}
	for _, s := range settingsTable {
		// An empty variable is unset, as in most programs.
		if v := getenv(s.name); v != "" {
			vals[s.name] = settings.FromText(v)
		}
	}
	c, err := buildConfig(vals)
	if err != nil {
		return c, err
	}
	c.Tools = toolsCfg
	c.Tools.Timeout = c.ToolTimeout
	if err := c.Tools.Validate(); err != nil {
		return c, err
	}
	return c, c.applyChannels(channels)
}

// applyChannels applies the per-channel settings of the file. A channel's
// settings are the defaults of every channel with its own parsed over
// them, through the same entries of the table.
func (c *config) applyChannels(channels []channelValues) error {
	var errs []error
	for _, ch := range channels {
		scratch := config{Attention: attention.Policy{Default: c.Attention.Default}, ChannelBudgetDay: c.ChannelBudgetDay, TZ: c.TZ}
		for _, kv := range ch.settings {
			if err := kv.setting.apply(&scratch, kv.value); err != nil {
				errs = append(errs, fmt.Errorf("channels: %q: %w", ch.id, err))
			}
		}
		if c.Attention.Channels == nil {
			c.Attention.Channels = map[string]attention.Settings{}
		}
		c.Attention.Channels[ch.id] = scratch.Attention.Default
		if scratch.ChannelBudgetDay != c.ChannelBudgetDay {
			if c.ChannelBudgets == nil {
				c.ChannelBudgets = map[string]int64{}
			}
			c.ChannelBudgets[ch.id] = scratch.ChannelBudgetDay
		}
		if scratch.TZ != c.TZ {
			if c.ChannelTZ == nil {
				c.ChannelTZ = map[string]*time.Location{}
			}
			c.ChannelTZ[ch.id] = scratch.TZ
		}
	}
	return errors.Join(errs...)
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
