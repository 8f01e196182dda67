package scheduler

import (
	"errors"
	"fmt"
	"time"

	"github.com/airi-go/airi/scheduler/attention"
)

// Defaults of the loop's settings, used where a Config field is zero. The
// command line's configuration and the table of docs/configuration.md
// take theirs from here.
const (
	// DefaultDebounce is the wait after a new message, so that a burst is
	// read together.
	DefaultDebounce = 800 * time.Millisecond
	// DefaultTickInterval is the period of the tick that looks for unread
	// messages in every channel.
	DefaultTickInterval = 60 * time.Second
	// DefaultMaxIterations bounds the model calls of one wake.
	DefaultMaxIterations = 5
	// DefaultAnswerTokens is the answer length a call reserves against
	// the budget when the model client's limit is not given.
	DefaultAnswerTokens = 1024
	// DefaultContinueDelay is the pause between the calls of one wake and
	// the wait before a re-arm.
	DefaultContinueDelay = time.Second
	// DefaultConcurrency bounds the model calls in flight across channels.
	DefaultConcurrency = 8
	// DefaultWakesPerCall is how many wakes may run at once for each model
	// call allowed in flight, and minWakes the fewest: a wake also reads the
	// store, sends and pauses between its calls, and the model slots stay
	// busy only if wakes are ready to take them.
	DefaultWakesPerCall = 4
	minWakes            = 16
)

// Config holds the loop's knobs. A zero value means the default noted on
// the field; the No* fields turn a delay or the periodic tick off (a
// negative duration is refused rather than read as "none").
type Config struct {
	// Debounce is the wait after a new message [DefaultDebounce];
	// NoDebounce wakes the channel at once.
	Debounce   time.Duration
	NoDebounce bool
	// TickInterval is the period of the periodic tick
	// [DefaultTickInterval]; NoPeriodic turns the periodic tick off.
	TickInterval time.Duration
	NoPeriodic   bool
	// MaxIterations bounds the model calls of one wake [DefaultMaxIterations].
	MaxIterations int
	// ContinueDelay is the pause between the calls of one wake and before
	// a re-arm [DefaultContinueDelay]; NoContinueDelay makes it none.
	ContinueDelay time.Duration
	// AnswerTokens is the most tokens an answer may take (the model
	// client's limit): a call reserves it against the budget, with the
	// request's, before it starts [DefaultAnswerTokens].
	AnswerTokens int
	// ModelProbe bounds how often ModelDegraded asks the model itself
	// while every call fails [DefaultModelProbe].
	ModelProbe      time.Duration
	NoContinueDelay bool
	RetryDelay      time.Duration // after a failed model call; 5s
	// Concurrency bounds the model calls in flight [DefaultConcurrency].
	Concurrency int
	// Wakes bounds the wakes running at once, each on a goroutine of its
	// own [DefaultWakesPerCall × Concurrency, at least 16]; channels due
	// beyond it wait their turn in the order they fell due.
	Wakes int
	// Interrupt cancels a model call when a new message arrives for its channel.
	Interrupt bool
	// DisplayCap bounds the messages one state message offers as new; the
	// prompt builder shows as many of them as fit its token budget.
	DisplayCap int // 20
	// ActionsShown is how many action records the prompt is given.
	ActionsShown int // 30
	// ActionKeep and ActionOver trim the action history.
	ActionKeep, ActionOver int // 20, 50
	MaxRearms              int // 2
	BotName                string
	Language               string
	// SendUser sends the per-channel user field "airi:<channel id>".
	SendUser bool
	// Allowed, when non-nil, says whether the bot may act in a channel.
	Allowed func(channelID string) bool
	Now     func() time.Time
	// Turn is how a wake ends after a send; empty means TurnSendEnds.
	Turn Turn
	// Attention, when set, decides which incoming messages wake their
	// channel (and records why); nil wakes the channel on every message
	// with the trigger "message".
	Attention *attention.Policy
	// LogContent logs the text of each message received; off, only its
	// length is logged.
	LogContent bool
	// Name, when set, is asked for the bot's name at each request and each
	// attention decision instead of BotName, so that a renamed persona
	// applies from the next request on.
	Name func() string
}

// Turn names the turn semantics a scheduler runs under: what ends a wake
// once the model has replied. Recorded sessions carry it, so that a
// session replays under the semantics it was recorded with.
type Turn string

// Turn semantics.
const (
	// TurnSendEnds: a send that goes out ends the wake unless the answer
	// says "then": "next"; a failed or held-back send, messages that
	// arrived while the model was deciding, and messages of the wake still
	// unanswered (a send to another channel) give the next call.
	TurnSendEnds Turn = "send-ends"
	// TurnContinue: every send gives the next call and the model ends
	// the wake with continue (sessions recorded before send-ends).
	TurnContinue Turn = "continue"
)

// Validate reports an unknown turn semantics.
func (t Turn) Validate() error {
	switch t {
	case TurnSendEnds, TurnContinue:
		return nil
	}
	return fmt.Errorf("unknown turn semantics %q: want %q or %q", string(t), TurnSendEnds, TurnContinue)
}

// validate refuses settings no default can stand for.
func (c *Config) validate() error {
	var errs []error
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"Debounce", c.Debounce}, {"TickInterval", c.TickInterval}, {"ContinueDelay", c.ContinueDelay}, {"RetryDelay", c.RetryDelay}} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("scheduler: %s is negative (%v): zero means the default, the No* fields turn it off", d.name, d.v))
		}
	}
	return errors.Join(errs...)
}

func (c *Config) defaults() {
	def := func(d *time.Duration, v time.Duration, none bool) {
		switch {
		case none:
			*d = 0
		case *d == 0:
			*d = v
		}
	}
	def(&c.Debounce, DefaultDebounce, c.NoDebounce)
	def(&c.TickInterval, DefaultTickInterval, c.NoPeriodic)
	def(&c.ContinueDelay, DefaultContinueDelay, c.NoContinueDelay)
	def(&c.RetryDelay, 5*time.Second, false)
	def(&c.ModelProbe, DefaultModelProbe, false)
	defInt := func(d *int, v int) {
		if *d <= 0 {
			*d = v
		}
	}
	defInt(&c.MaxIterations, DefaultMaxIterations)
	defInt(&c.AnswerTokens, DefaultAnswerTokens)
	defInt(&c.Concurrency, DefaultConcurrency)
	defInt(&c.Wakes, max(DefaultWakesPerCall*c.Concurrency, minWakes))
	defInt(&c.DisplayCap, 20)
	defInt(&c.ActionsShown, 30)
	defInt(&c.ActionKeep, 20)
	defInt(&c.ActionOver, 50)
	if c.MaxRearms == 0 {
		c.MaxRearms = 2
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Turn == "" {
		c.Turn = TurnSendEnds
	}
}
