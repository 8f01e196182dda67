// Package media decides what the model is shown of the photos, stickers,
// voice notes and files that messages carry. It owns fetching a file from
// the platform's own file endpoint (through the adapter, within a byte
// limit, once per file), describing images with a vision model,
// transcribing voice notes, the cache of all of that in the store, the
// budget those calls spend, and the images a request sends inline.
//
// Nothing is fetched when a message arrives: Prepare runs when a request
// is built, for the messages that request shows, so chatter that wakes
// nothing costs nothing. Whatever fails leaves the attachment with a
// placeholder that says why; the message itself always reaches the model.
package media

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state"
)

// Mode is what the model sees of an image or a sticker.
type Mode string

const (
	// ModeOff shows a placeholder such as "[photo]".
	ModeOff Mode = "off"
	// ModeDescribe describes each image once with the vision model; the
	// description stands in the chat as text.
	ModeDescribe Mode = "describe"
	// ModeInline sends the newest images to the main model as image
	// parts of the messages that carried them.
	ModeInline Mode = "inline"
)

// Defaults of Config.
const (
	DefaultMaxBytes        = 10 << 20
	DefaultVoiceMaxSeconds = 300
	// DefaultInline is how many of the newest images a request sends
	// inline.
	DefaultInline = 4
)

// SpeechTokensPerSecond is what a second of transcribed audio counts in
// the token budgets: speech endpoints report no tokens.
const SpeechTokensPerSecond = 10

// Bounds of the work of one request.
const (
	// maxLooks bounds the files one request fetches; the rest wait for a
	// later request and show their placeholder meanwhile.
	maxLooks = 8
	// visionEstimate is what a description is reserved in the budget
	// before the call reports its cost.
	visionEstimate = 1500
	// textMaxBytes bounds the text documents that are read; textMaxRunes
	// how much of one the model sees, as of a transcript.
	textMaxBytes = 64 << 10
	textMaxRunes = 2000
)

// Config sets what the model is shown of attachments.
type Config struct {
	// Mode is what the model sees of images; "" is off.
	Mode Mode
	// MaxBytes bounds one fetched file (0: DefaultMaxBytes).
	MaxBytes int64
	// VoiceMaxSeconds bounds a transcribed voice note (0:
	// DefaultVoiceMaxSeconds).
	VoiceMaxSeconds int
	// Inline is how many images a request sends inline (0:
	// DefaultInline).
	Inline int
}

// Validate reports what is wrong with c.
func (c Config) Validate() error {
	var errs []error
	switch c.Mode {
	case "", ModeOff, ModeDescribe, ModeInline:
	default:
		errs = append(errs, fmt.Errorf("AIRI_MEDIA %q: want describe, inline or off", c.Mode))
	}
	if c.MaxBytes < 0 {
		errs = append(errs, errors.New("AIRI_MEDIA_MAX_BYTES: must not be negative"))
	}
	if c.VoiceMaxSeconds < 0 {
		errs = append(errs, errors.New("AIRI_VOICE_MAX_SECONDS: must not be negative"))
	}
	if c.Inline < 0 {
		errs = append(errs, errors.New("media: inline images must not be negative"))
	}
	return errors.Join(errs...)
}

func (c Config) withDefaults() Config {
	if c.Mode == "" {
		c.Mode = ModeOff
	}
	if c.MaxBytes == 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.VoiceMaxSeconds == 0 {
		c.VoiceMaxSeconds = DefaultVoiceMaxSeconds
	}
	if c.Inline == 0 {
		c.Inline = DefaultInline
	}
	return c
}

// Fetcher fetches the files of one platform from its own file endpoint.
type Fetcher interface {
	FetchMedia(ctx context.Context, m state.Media, thumb bool, max int64) ([]byte, string, error)
}

// Describer describes an image in one short paragraph and reports the
// tokens the call cost.
type Describer interface {
	Describe(ctx context.Context, img state.Image, kind string) (text string, tokens int64, err error)
}

// Transcriber turns speech into text.
type Transcriber interface {
	Transcribe(ctx context.Context, audio []byte, name string) (string, error)
}

// Budget is the daily token budgets the vision and speech calls spend.
type Budget interface {
	Level(ctx context.Context, channelID string, now time.Time) (budget.Level, error)
	Admit(ctx context.Context, channelID string, now time.Time, estimate int64) (release func(tokens int64), ok bool, err error)
}

// Deps are what the room works with.
type Deps struct {
	Store state.MediaCache
	// Fetcher returns the fetcher of a channel's platform and the
	// platform's name, the first part of every cache key; nil when the
	// channel's adapter fetches nothing.
	Fetcher func(channelID string) (Fetcher, string)
	// Describer and Transcriber are nil when no vision or speech model
	// is set.
	Describer   Describer
	Transcriber Transcriber
	// Budget is nil when no budget is set.
	Budget Budget
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	Log *zap.Logger
	// OnMedia, when set, sees every attachment looked at: its kind, the
	// outcome (see the Outcome constants) and the bytes fetched.
	OnMedia func(kind, outcome string, bytes int64)
}

// Outcomes of looking at an attachment, as OnMedia and the tick record
// name them.
const (
	OutcomeDescribed   = "described"
	OutcomeTranscribed = "transcribed"
	OutcomeRead        = "read"    // a text document's text
	OutcomeFetched     = "fetched" // bytes only: an inline image
	OutcomeCached      = "cached"
	OutcomeTooLarge    = "too_large"
	OutcomeTooLong     = "too_long"
	OutcomeForeign     = "foreign"
	OutcomeBudget      = "budget"
	OutcomeFailed      = "failed"
)

// Room prepares the attachments of the messages a request shows.
type Room struct {
	cfg Config
	d   Deps
}

// New returns a room; cfg must be valid.
func New(cfg Config, d Deps) (*Room, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if cfg.Mode == ModeDescribe && d.Describer == nil {
		return nil, errors.New("AIRI_MEDIA=describe needs a vision model (LLM_VISION_MODEL)")
	}
	if d.Store == nil {
		return nil, errors.New("media: no store")
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = zap.NewNop()
	}
	return &Room{cfg: cfg, d: d}, nil
}

// Mode is the room's mode.
func (r *Room) Mode() Mode { return r.cfg.Mode }

// Result is what Prepare made of a request's messages.
type Result struct {
	// Messages are the messages given, in their order, with the
	// attachments looked at filled in.
	Messages []state.Message
	// Images are the images to send inline, by hash (inline mode).
	Images map[string]state.Image
	// Tokens are what the vision and speech calls cost.
	Tokens int64
	// Notes say what was done with each attachment looked at, for the
	// tick record.
	Notes []string
}

// Prepare looks at the attachments of msgs (oldest first) that nothing
// was made of yet, newest first and at most a few files a request,
// stores what it made of each on its message, and picks the images to
// send inline. Errors of the store are returned; everything else becomes
// an attachment's placeholder.
func (r *Room) Prepare(ctx context.Context, channelID string, msgs []state.Message) (Result, error) {
	res := Result{Messages: msgs}
	if !r.wanted(msgs) {
		return res, nil
	}
	var fetch Fetcher
	platform := ""
	if r.d.Fetcher != nil {
		fetch, platform = r.d.Fetcher(channelID)
	}
	lk := &looker{r: r, channelID: channelID, fetch: fetch, platform: platform}
	out := make([]state.Message, len(msgs))
	copy(out, msgs)
	inline := 0
	for i := len(out) - 1; i >= 0; i-- {
		m := out[i]
		if len(m.Media) == 0 {
			continue
		}
		// media is what this request shows; keep what is stored on the
		// message: the outcomes that may change (a budget spent, a
		// download that failed) are shown but not kept.
		media := append([]state.Media(nil), m.Media...)
		keep := append([]state.Media(nil), m.Media...)
		changed := false
		for j := range media {
			lasting, err := lk.look(ctx, &media[j])
			if err != nil {
				return Result{}, err
			}
			if lasting {
				keep[j], changed = media[j], true
			}
		}
		m.Media = media
		out[i] = m
		if changed && m.ID != 0 {
			if err := r.d.Store.SetMessageMedia(ctx, m.ChannelID, m.ID, keep); err != nil {
				return Result{}, fmt.Errorf("store attachments of message %d: %w", m.ID, err)
			}
		}
		if r.cfg.Mode == ModeInline && !m.Self {
			for _, md := range media {
				if inline >= r.cfg.Inline || md.Hash == "" || !imageKind(md) {
					continue
				}
				img, err := lk.image(ctx, md.Hash)
				if err != nil {
					return Result{}, err
				}
				if img.Data != nil {
					if res.Images == nil {
						res.Images = map[string]state.Image{}
					}
					if _, dup := res.Images[md.Hash]; !dup {
						inline++
					}
					res.Images[md.Hash] = img
				}
			}
		}
	}
	res.Messages, res.Tokens, res.Notes = out, lk.tokens, lk.notes
	return res, nil
}

// wanted reports whether any message has an attachment to look at or
// an image to send.
func (r *Room) wanted(msgs []state.Message) bool {
	for _, m := range msgs {
		if len(m.Media) > 0 {
			return true
		}
	}
	return false
}
