package runtime

import (
	"time"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/media"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/schedule"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state/postgres"
)

// DefaultTickRetention is how long the running bot keeps tick records by
// default.
const DefaultTickRetention = 30 * 24 * time.Hour

// Defaults is the Config of a bot whose every setting is at its default,
// each from the package that owns it: the configuration of `airi run`
// with nothing set, for a program or a test that builds the bot without
// the binary's settings and changes only what it means to.
func Defaults() Config {
	return Config{
		SendUser:            true,
		History:             planner.DefaultHistoryLimit,
		Debounce:            scheduler.DefaultDebounce,
		TickInterval:        scheduler.DefaultTickInterval,
		MaxIterations:       scheduler.DefaultMaxIterations,
		ContinueDelay:       scheduler.DefaultContinueDelay,
		SleepMax:            actions.DefaultSleepMax,
		Concurrency:         scheduler.DefaultConcurrency,
		Interrupt:           true,
		PromptMaxTokens:     planner.DefaultMaxTokens,
		PromptCacheChannels: planner.DefaultCachedChannels,
		MaxSendChars:        actions.DefaultMaxSendChars,
		MaxSendParts:        actions.DefaultMaxSendParts,
		Attention:           attention.Policy{Default: attention.Defaults()},
		Budget:              budget.Config{Location: time.UTC},
		AnswerTokens:        scheduler.DefaultAnswerTokens,
		TickRetention:       DefaultTickRetention,
		LeaseTTL:            postgres.DefaultLeaseTTL,
		TZ:                  time.UTC,
		ScheduleMax:         schedule.DefaultMax,
		ScheduleMaxPerUser:  schedule.DefaultMaxPerPerson,
		Media:               media.Config{MaxBytes: media.DefaultMaxBytes, VoiceMaxSeconds: media.DefaultVoiceMaxSeconds},
	}
}
