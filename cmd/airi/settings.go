package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/adapters/telegram"
	"github.com/airi-go/airi/internal/settings"
	"github.com/airi-go/airi/media"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/openai"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/schedule"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/state/postgres"
	"github.com/airi-go/airi/tools"
)

// setting is one entry of the settings table. The table is the only list
// of settings: the environment, the YAML file, the per-channel keys,
// `airi config check`, `airi config docs` and the suggestions for a
// mistyped name all read it.
type setting struct {
	// name is the environment variable; the YAML key is its lower case.
	name string
	// def is the default, written as it would be set; "" when the
	// setting is unset by default.
	def string
	// unset says in words what an unset setting means ("none", "all"),
	// for the documentation; def, when set, is documented instead.
	unset string
	// doc is the one-line meaning.
	doc string
	// channel marks a setting that a channel may override under
	// channels: in the YAML file.
	channel bool
	// parse reads a value into its field of the config. Its errors say
	// what was wanted; settings.Describe adds the name and the value.
	parse settings.Parse[config]
}

// apply parses v into c and reports a problem as a line naming the setting.
func (s setting) apply(c *config, v value) error {
	if err := s.parse(c, v); err != nil {
		return settings.Describe(s.name, v, err)
	}
	return nil
}

// Defaults of the settings the binary owns; every other default comes
// from the package that owns the setting.
const (
	defaultDBPath    = "./data/airi.db"
	defaultAdminAddr = "127.0.0.1:7070"
	defaultInterrupt = "cancel"
	defaultLogLevel  = "info"
	// defaultWebhookAddr is where Telegram webhook mode listens.
	defaultWebhookAddr = ":8443"
	// defaultTickRetention is how long the running bot keeps tick records.
	defaultTickRetention = runtime.DefaultTickRetention
	// defaultGiveUp is how long airi chat waits for a model that fails
	// every call before it gives up.
	defaultGiveUp = 2 * time.Minute
)

// minPromptTokens is the smallest request budget accepted. The system
// message alone takes about a thousand tokens; below this no history or
// new message would fit beside it.
const minPromptTokens = 2000

// settingsTable lists every setting, in the order of the documentation.
var settingsTable = []setting{
	{name: "LLM_API_BASE_URL", unset: "none (required by chat and run)", doc: "OpenAI-compatible endpoint, e.g. `https://api.openai.com/v1`",
		parse: absoluteURL(func(c *config) *string { return &c.LLMBaseURL }, "https://api.openai.com/v1 or http://localhost:11434/v1")},
	{name: "LLM_API_KEY", unset: "none", doc: "bearer key; never logged",
		parse: text(func(c *config) *string { return &c.LLMKey }, nil)},
	{name: "LLM_MODEL", unset: "none (required)", doc: "model name",
		parse: text(func(c *config) *string { return &c.LLMModel }, nil)},
	{name: "LLM_TIMEOUT", def: durationText(openai.DefaultTimeout), doc: "timeout of one model call attempt",
		parse: duration(func(c *config) *time.Duration { return &c.LLMTimeout }, false)},
	{name: "LLM_TEMPERATURE", unset: "the provider's", doc: "sampling temperature",
		parse: settings.Number(func(c *config) **float32 { return &c.LLMTemperature }, 0, 2)},
	{name: "LLM_MAX_TOKENS", def: strconv.Itoa(openai.DefaultMaxTokens), doc: "answer length bound",
		parse: whole(func(c *config) *int { return &c.LLMMaxTokens }, 1)},
	{name: "LLM_JSON_MODE", def: openai.JSONModeOff, doc: "`off`, `object` (`response_format: json_object`) or `schema` (a JSON schema of the actions)",
		parse: oneOf(func(c *config) *string { return &c.LLMJSONMode }, openai.JSONModeOff, openai.JSONModeObject, openai.JSONModeSchema)},
	{name: "LLM_VISION_MODEL", unset: "none", doc: "a model that sees images, for describing photos and stickers (on the main endpoint unless `LLM_VISION_BASE_URL` is set)",
		parse: text(func(c *config) *string { return &c.Vision.Model }, nil)},
	{name: "LLM_VISION_BASE_URL", unset: "the main endpoint's", doc: "API root of the vision model",
		parse: absoluteURL(func(c *config) *string { return &c.Vision.BaseURL }, "https://api.openai.com/v1")},
	{name: "LLM_VISION_API_KEY", unset: "none", doc: "key of `LLM_VISION_BASE_URL`",
		parse: text(func(c *config) *string { return &c.Vision.Key }, nil)},
	{name: "AIRI_MEDIA", unset: "`describe` with a vision model, else `off`", doc: "what the model sees of images: `describe` (a description, once per file), `inline` (image parts for the newest images) or `off` (a placeholder)",
		parse: custom(func(c *config) *media.Mode { return &c.Media.Mode }, func(s string) (media.Mode, error) {
			if m := media.Mode(s); m == "" || m == media.ModeDescribe || m == media.ModeInline || m == media.ModeOff {
				return m, nil
			}
			return "", want("want describe, inline or off")
		})},
	{name: "AIRI_MEDIA_MAX_BYTES", def: strconv.Itoa(media.DefaultMaxBytes), doc: "largest file fetched from a chat; larger ones get a placeholder that says so",
		parse: custom(func(c *config) *int64 { return &c.Media.MaxBytes }, parseBytes)},
	{name: "AIRI_VOICE_MAX_SECONDS", def: strconv.Itoa(media.DefaultVoiceMaxSeconds), doc: "longest voice note transcribed",
		parse: whole(func(c *config) *int { return &c.Media.VoiceMaxSeconds }, 1)},
	{name: "AIRI_MEDIA_HOSTS", unset: "none", doc: "Satori: hosts besides the Satori server's own whose files may be fetched, e.g. `cdn.example.org,files.example.org:8443`",
		parse: list(func(c *config) *[]string { return &c.MediaHosts })},
	{name: "STT_MODEL", unset: "none", doc: "speech-to-text model for voice notes (`POST /audio/transcriptions`)",
		parse: text(func(c *config) *string { return &c.Speech.Model }, nil)},
	{name: "STT_BASE_URL", unset: "the main endpoint's", doc: "API root of the speech-to-text model",
		parse: absoluteURL(func(c *config) *string { return &c.Speech.BaseURL }, "https://api.groq.com/openai/v1")},
	{name: "STT_API_KEY", unset: "none", doc: "key of `STT_BASE_URL`",
		parse: text(func(c *config) *string { return &c.Speech.Key }, nil)},
	{name: "LLM_EXTRA_BODY", unset: "none", doc: "JSON object merged into each request body, e.g. `{\"enable_thinking\": false}`",
		parse: jsonObject(func(c *config) *map[string]any { return &c.LLMExtraBody })},
	{name: "LLM_RESPONSE_LANGUAGE", unset: "the users' language", doc: "language the bot answers in",
		parse: text(func(c *config) *string { return &c.Language }, nil)},
	{name: "LLM_SEND_USER", def: "true", doc: "send the per-channel `user` field `airi:<channel id>` (helps providers keep the prompt cache warm)",
		parse: boolean(func(c *config) *bool { return &c.SendUser })},
	{name: "AIRI_BOT_NAME", unset: "the persona's name", doc: "the bot's display name",
		parse: text(func(c *config) *string { return &c.BotName }, nil)},
	{name: "PROMPTS_DIR", unset: "none", doc: "directory whose templates override the embedded ones (`airi prompt init DIR` writes them there)",
		parse: text(func(c *config) *string { return &c.PromptsDir }, settings.ExistingDir("prompt templates"))},
	{name: "DB_PATH", def: defaultDBPath, doc: "SQLite file (used when `DATABASE_URL` is unset)",
		parse: text(func(c *config) *string { return &c.DBPath }, nil)},
	{name: "DATABASE_URL", unset: "none", doc: "`postgres://user:password@host:5432/db`: keep the state in PostgreSQL and let several `airi run` replicas serve the bot",
		parse: text(func(c *config) *string { return &c.DatabaseURL }, checkDatabaseURL)},
	{name: "AIRI_LEASE_TTL", def: durationText(postgres.DefaultLeaseTTL), doc: "how long a replica keeps its channels and roles after its last heartbeat",
		parse: settings.DurationAtLeast(func(c *config) *time.Duration { return &c.LeaseTTL }, time.Second)},
	{name: "AIRI_HISTORY", def: strconv.Itoa(planner.DefaultHistoryLimit), doc: "messages in the history window",
		parse: whole(func(c *config) *int { return &c.History }, 2)},
	{name: "AIRI_DEBOUNCE", def: durationText(scheduler.DefaultDebounce), doc: "wait after a new message so a burst is read together (`0s` for none)",
		parse: duration(func(c *config) *time.Duration { return &c.Debounce }, true)},
	{name: "AIRI_TICK_INTERVAL", def: durationText(scheduler.DefaultTickInterval), doc: "periodic tick (only channels with unread messages that would wake them cost a call)",
		parse: duration(func(c *config) *time.Duration { return &c.TickInterval }, false)},
	{name: "AIRI_MAX_ITERATIONS", def: strconv.Itoa(scheduler.DefaultMaxIterations), doc: "model calls per wake",
		parse: whole(func(c *config) *int { return &c.MaxIterations }, 1)},
	{name: "AIRI_CONTINUE_DELAY", def: durationText(scheduler.DefaultContinueDelay), doc: "pause between the calls of one wake (`0s` for none)",
		parse: duration(func(c *config) *time.Duration { return &c.ContinueDelay }, true)},
	{name: "AIRI_SLEEP_MAX", def: durationText(actions.DefaultSleepMax), doc: "longest `sleep`; a longer one sleeps this long",
		parse: duration(func(c *config) *time.Duration { return &c.SleepMax }, false)},
	{name: "AIRI_MODEL_CONCURRENCY", def: strconv.Itoa(scheduler.DefaultConcurrency), doc: "model calls in flight across channels",
		parse: whole(func(c *config) *int { return &c.Concurrency }, 1)},
	{name: "AIRI_WAKE_CONCURRENCY", unset: fmt.Sprintf("%d × `AIRI_MODEL_CONCURRENCY`, at least 16", scheduler.DefaultWakesPerCall), doc: "wakes running at once; chats due beyond it wait their turn in the order they fell due",
		parse: settings.Optional(whole(func(c *config) *int { return &c.Wakes }, 1))},
	{name: "AIRI_INTERRUPT", def: defaultInterrupt, doc: "a new message cancels the channel's model call in flight and re-plans with it; `finish` lets it finish",
		parse: oneOf(func(c *config) *string { return &c.Interrupt }, "cancel", "finish")},
	{name: "AIRI_PROMPT_MAX_TOKENS", def: strconv.Itoa(planner.DefaultMaxTokens), doc: fmt.Sprintf("bound of one model request in tokens (o200k estimate, at least %d)", minPromptTokens),
		parse: whole(func(c *config) *int { return &c.PromptMaxTokens }, minPromptTokens)},
	{name: "AIRI_PROMPT_CACHE_CHANNELS", def: strconv.Itoa(planner.DefaultCachedChannels), doc: "channels whose rendered system message and history token counts are kept between ticks",
		parse: whole(func(c *config) *int { return &c.PromptCacheChannels }, 1)},
	{name: "AIRI_ALLOW_CHANNELS", unset: "all", doc: "comma list of channel ids the bot may act in; the model never sees the others",
		parse: list(func(c *config) *[]string { return &c.AllowChannels })},
	{name: "AIRI_MAX_SEND_CHARS", def: strconv.Itoa(actions.DefaultMaxSendChars), doc: "longest message one `send_message` may send, in characters",
		parse: whole(func(c *config) *int { return &c.MaxSendChars }, 1)},
	{name: "AIRI_MAX_SEND_PARTS", def: strconv.Itoa(actions.DefaultMaxSendParts), doc: "most platform messages one `send_message` may become",
		parse: whole(func(c *config) *int { return &c.MaxSendParts }, 1)},

	{name: "AIRI_GROUP_MODE", def: string(attention.Defaults().Mode), channel: true, doc: "what wakes the bot in a group: `ambient` (being addressed, and now and then the talk), `addressed` (only being addressed), `all` (every message)",
		parse: groupMode},
	{name: "AIRI_ALIASES", unset: "none", channel: true, doc: "comma list of further words that address the bot (whole words, any case); its name always does",
		parse: aliases},
	{name: "AIRI_AMBIENT_EVERY", def: strconv.Itoa(attention.Defaults().AmbientEvery), channel: true, doc: "unaddressed group messages an ambient wake needs at least",
		parse: whole(func(c *config) *int { return &c.Attention.Default.AmbientEvery }, 1)},
	{name: "AIRI_AMBIENT_MIN_GAP", def: durationText(attention.Defaults().AmbientMinGap), channel: true, doc: "least time between the channel's previous model call and an ambient wake",
		parse: gap(func(c *config) *time.Duration { return &c.Attention.Default.AmbientMinGap })},
	{name: "AIRI_GROUP_COOLDOWN", def: durationText(attention.Defaults().Cooldown), channel: true, doc: "after the bot spoke in a group, only addressed messages wake it for this long",
		parse: gap(func(c *config) *time.Duration { return &c.Attention.Default.Cooldown })},
	{name: "AIRI_SENDER_RATE", def: attention.Defaults().SenderRate.String(), channel: true, doc: "messages of one sender in a group that may wake the bot per period (`off` for no limit)",
		parse: custom(func(c *config) *attention.Rate { return &c.Attention.Default.SenderRate }, func(s string) (attention.Rate, error) {
			r, err := attention.ParseRate(s)
			if err != nil {
				return r, want("want messages/period such as 20/1m, or off")
			}
			return r, nil
		})},
	{name: "AIRI_IGNORE_BOTS", def: strconv.FormatBool(attention.Defaults().IgnoreBots), channel: true, doc: "messages from other bots never wake the bot",
		parse: boolean(func(c *config) *bool { return &c.Attention.Default.IgnoreBots })},
	{name: "AIRI_BOT_REPLIES", def: strconv.Itoa(attention.Defaults().BotReplies), channel: true, doc: "with `AIRI_IGNORE_BOTS=false`: replies in a row to bots, then only a human's message wakes the bot again",
		parse: whole(func(c *config) *int { return &c.Attention.Default.BotReplies }, 0)},
	{name: "AIRI_BOT_PAIR_RATE", def: attention.Defaults().BotPairRate.String(), channel: true, doc: "with `AIRI_IGNORE_BOTS=false`: messages this bot and one other bot may exchange in a chat per period, then only a human wakes the bot there for a minute (`off` for no limit)",
		parse: custom(func(c *config) *attention.Rate { return &c.Attention.Default.BotPairRate }, func(s string) (attention.Rate, error) {
			r, err := attention.ParseRate(s)
			if err != nil {
				return r, want("want messages/period such as 20/1m, or off")
			}
			return r, nil
		})},
	{name: "AIRI_BUDGET_TOKENS_DAY", unset: "none", doc: "token budget of all channels together per day",
		parse: custom(func(c *config) *int64 { return &c.BudgetDay }, parseTokens)},
	{name: "AIRI_CHANNEL_BUDGET_TOKENS_DAY", unset: "none", channel: true, doc: "token budget of each channel per day",
		parse: custom(func(c *config) *int64 { return &c.ChannelBudgetDay }, parseTokens)},
	{name: "AIRI_BUDGET_TZ", def: "UTC", doc: "time zone whose calendar days the budgets count, e.g. `Europe/Berlin`",
		parse: custom(func(c *config) **time.Location { return &c.BudgetTZ }, loadZone)},

	{name: "AIRI_TZ", def: "UTC", channel: true, doc: "time zone reminders are read and shown in (`YYYY-MM-DD HH:MM`, `daily`), e.g. `Europe/Berlin`",
		parse: custom(func(c *config) **time.Location { return &c.TZ }, loadZone)},
	{name: "AIRI_SCHEDULE_MAX", def: strconv.Itoa(schedule.DefaultMax), doc: "pending reminders one chat may have",
		parse: whole(func(c *config) *int { return &c.ScheduleMax }, 1)},
	{name: "AIRI_SCHEDULE_MAX_PER_USER", def: strconv.Itoa(schedule.DefaultMaxPerPerson), doc: "pending reminders one person may have asked for, across chats",
		parse: whole(func(c *config) *int { return &c.ScheduleMaxPerUser }, 1)},
	{name: "SATORI_WS_URL", unset: "none", doc: "Satori adapter (runs when `SATORI_WS_URL` is set): the events WebSocket",
		parse: absoluteURL(func(c *config) *string { return &c.SatoriWSURL }, "ws://127.0.0.1:5140/satori/v1/events")},
	{name: "SATORI_API_BASE_URL", unset: "none", doc: "Satori adapter: the API base URL",
		parse: absoluteURL(func(c *config) *string { return &c.SatoriAPIBaseURL }, "http://127.0.0.1:5140/satori/v1")},
	{name: "SATORI_TOKEN", unset: "none", doc: "Satori adapter: the token",
		parse: text(func(c *config) *string { return &c.SatoriToken }, nil)},
	{name: "TELEGRAM_BOT_TOKEN", unset: "none", doc: "Telegram adapter (runs when the token is set)",
		parse: text(func(c *config) *string { return &c.TelegramToken }, nil)},
	{name: "TELEGRAM_API_BASE_URL", def: telegram.DefaultAPIBaseURL, doc: "Telegram Bot API server",
		parse: absoluteURL(func(c *config) *string { return &c.TelegramAPIBaseURL }, "https://api.telegram.org")},
	{name: "TELEGRAM_WEBHOOK_URL", unset: "none (long polling)", doc: "take Telegram updates by webhook at this `https://` URL instead of polling; `http://` only for `127.0.0.1` or `localhost`",
		parse: text(func(c *config) *string { return &c.TelegramWebhookURL }, nil)},
	{name: "TELEGRAM_WEBHOOK_SECRET", unset: "none (required with the URL)", doc: "secret token Telegram sends with every webhook request; never logged",
		parse: text(func(c *config) *string { return &c.TelegramWebhookSecret }, nil)},
	{name: "AIRI_WEBHOOK_ADDR", def: defaultWebhookAddr, doc: "where each replica listens for webhook requests, at the path of `TELEGRAM_WEBHOOK_URL`",
		parse: text(func(c *config) *string { return &c.WebhookAddr }, nil)},
	{name: "AIRI_ADMIN_ADDR", def: defaultAdminAddr, doc: "admin server: the inspector at `/`, `/healthz`, `/readyz`, `/metrics`",
		parse: text(func(c *config) *string { return &c.AdminAddr }, nil)},
	{name: "AIRI_ADMIN_TOKEN", unset: "none", doc: "required when the admin address is reachable beyond loopback",
		parse: text(func(c *config) *string { return &c.AdminToken }, nil)},
	{name: "AIRI_ADMINS", unset: "none", doc: "platform-qualified user ids whose `/airi ...` chat commands the bot obeys, e.g. `telegram:123456789,qq:10001`",
		parse: settings.QualifiedIDs(func(c *config) *[]string { return &c.Admins }, "telegram:123456789,qq:10001")},
	{name: "AIRI_TICK_RETENTION", def: fmt.Sprintf("%dd", defaultTickRetention/(24*time.Hour)), doc: "tick records, and reminders that ended, older than this are deleted in the background (`12h`, `7d`, or `forever`)",
		parse: retention(func(c *config) *time.Duration { return &c.TickRetention })},
	{name: "AIRI_MESSAGE_RETENTION", def: "forever", doc: "read messages (and finished outbox entries) older than this are deleted; unread ones never",
		parse: retention(func(c *config) *time.Duration { return &c.MessageRetention })},
	{name: "AIRI_TOOL_TIMEOUT", def: durationText(tools.DefaultTimeout), doc: "longest MCP tool call; a slower one is a timeout the model reads as its result",
		parse: duration(func(c *config) *time.Duration { return &c.ToolTimeout }, false)},
	{name: "LLM_GIVE_UP", def: durationText(defaultGiveUp), doc: "`airi chat` with piped input exits 1 once every model call has failed this long",
		parse: duration(func(c *config) *time.Duration { return &c.GiveUp }, false)},
	{name: "LOG_LEVEL", def: defaultLogLevel, doc: "`debug`, `info`, `warn`, `error`",
		parse: oneOf(func(c *config) *string { return &c.LogLevel }, "debug", "info", "warn", "error")},
	{name: "LOG_FORMAT", unset: "console on a terminal, JSON otherwise", doc: "`console` or `json`",
		parse: text(func(c *config) *string { return &c.LogFormat }, func(s string) error {
			if s != "" && s != "json" && s != "console" {
				return want("want json or console")
			}
			return nil
		})},
	{name: "LOG_CONTENT", def: "false", doc: "log the text of each message received (otherwise only its length)",
		parse: boolean(func(c *config) *bool { return &c.LogContent })},
}

// findSetting returns the entry named name (any case).
func findSetting(name string) (setting, bool) {
	for _, s := range settingsTable {
		if strings.EqualFold(s.name, name) {
			return s, true
		}
	}
	return setting{}, false
}

// settingNames are the names of the table, for suggestions.
func settingNames(channelOnly bool) []string {
	var out []string
	for _, s := range settingsTable {
		if !channelOnly || s.channel {
			out = append(out, s.name)
		}
	}
	return out
}

// checkDatabaseURL refuses what is not a PostgreSQL URL. The value may
// hold a password: the error never echoes it.
func checkDatabaseURL(s string) error {
	if s != "" && !strings.HasPrefix(s, "postgres://") && !strings.HasPrefix(s, "postgresql://") {
		return errors.New("want a postgres:// URL such as postgres://airi@db:5432/airi (unset it to use SQLite at DB_PATH)")
	}
	return nil
}

func groupMode(c *config, v value) error {
	s, ok := v.Scalar()
	m := attention.Mode(strings.ToLower(strings.TrimSpace(s)))
	if !ok || m.Validate() != nil {
		return want("want ambient, addressed or all")
	}
	c.Attention.Default.Mode = m
	return nil
}

func aliases(c *config, v value) error {
	words, ok := v.List()
	if !ok {
		return want("want a comma list or a YAML list of words")
	}
	c.Attention.Default.Aliases = attention.NormalizeWords(words)
	return nil
}
