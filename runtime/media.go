package runtime

import (
	"fmt"

	"go.uber.org/zap"

	"github.com/airi-go/airi/media"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/openai"
)

// Endpoint names a model of its own (the vision or the speech model): on
// the main endpoint unless BaseURL is set, with Key.
type Endpoint struct{ Model, BaseURL, Key string }

// MediaModels builds the clients of the vision and speech models, nil for
// those without a Model; main is the main model's endpoint and timeout.
func MediaModels(main openai.Config, vision, speech Endpoint, log *zap.Logger) (planner.Model, media.Transcriber, error) {
	client := func(e Endpoint, what string) (*openai.Client, error) {
		mc := openai.Config{BaseURL: main.BaseURL, APIKey: main.APIKey, Model: e.Model, Timeout: main.Timeout, MaxTokens: 400}
		if e.BaseURL != "" {
			mc.BaseURL, mc.APIKey = e.BaseURL, e.Key
		}
		c, err := openai.New(mc, log.Named(what))
		if err != nil {
			return nil, fmt.Errorf("%s model: %w", what, err)
		}
		return c, nil
	}
	var (
		v planner.Model
		s media.Transcriber
	)
	if vision.Model != "" {
		c, err := client(vision, "vision")
		if err != nil {
			return nil, nil, err
		}
		v = c
	}
	if speech.Model != "" {
		c, err := client(speech, "speech")
		if err != nil {
			return nil, nil, err
		}
		s = c
	}
	return v, s, nil
}

// newMediaRoom builds the room that looks at attachments, or nil when it
// has nothing to do: no vision model, no speech model and media off.
func (b *Bot) newMediaRoom(cfg media.Config, deps Deps, bud media.Budget) (*media.Room, error) {
	if cfg.Mode == "" && deps.Vision != nil {
		cfg.Mode = media.ModeDescribe
	}
	if (cfg.Mode == "" || cfg.Mode == media.ModeOff) && deps.Speech == nil {
		return nil, nil
	}
	d := media.Deps{
		Store:       b.store,
		Fetcher:     b.router.fetcher,
		Transcriber: deps.Speech,
		Budget:      bud,
		Now:         b.now,
		Log:         b.log.Named("media"),
		OnMedia:     deps.OnMedia,
	}
	if deps.Vision != nil {
		d.Describer = media.Vision{Model: deps.Vision}
	}
	room, err := media.New(cfg, d)
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	return room, nil
}

// fetcher returns the file fetcher of a channel's adapter and the
// adapter's name, or nil when the adapter fetches no files.
func (r *router) fetcher(channelID string) (media.Fetcher, string) {
	a, _, err := r.resolve(channelID)
	if err != nil {
		return nil, ""
	}
	f, ok := a.(media.Fetcher)
	if !ok {
		return nil, a.Name()
	}
	return f, a.Name()
}
