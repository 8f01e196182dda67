package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/state"
)

// SessionSettings are the settings of cfg that a session's header records,
// for a replay to run the session as it ran (SessionConfig reads them
// back).
func SessionSettings(cfg Config) replay.Settings {
	return replay.Settings{
		BotName: cfg.BotName, Language: cfg.Language, History: cfg.History, MaxIterations: cfg.MaxIterations,
		Interrupt: cfg.Interrupt, SleepMaxMS: cfg.SleepMax.Milliseconds(), SendUser: cfg.SendUser,
		AllowChannels: cfg.AllowChannels,
	}
}

// ExportSource is what exporting sessions reads from a store: the ticks
// and events, and the tool catalog the bot stored.
type ExportSource interface {
	replay.Source
	Cursor(ctx context.Context, key string) (string, error)
}

// ExportSessions writes the sessions recorded in src that filter selects
// to w, one after another, and returns how many it wrote; none recorded
// is 0 and no error. The headers carry the settings of cfg, the
// configuration the bot ran with, and the persona's name when cfg names
// no bot; with tools configured, also the tool catalog the bot last
// listed and the rules of cfg.
func ExportSessions(ctx context.Context, src ExportSource, cfg Config, filter state.TickFilter, w io.Writer) (int, error) {
	bot := cfg.BotName
	if bot == "" {
		p, err := prompts.Load(cfg.PromptsDir, nil)
		if err != nil {
			return 0, fmt.Errorf("load prompts for the bot's name: %w", err)
		}
		bot = p.Current().BotName()
	}
	var toolsHeader *replay.Tools
	if cfg.Tools.Enabled() {
		catalog, err := src.Cursor(ctx, CatalogKey)
		if err != nil {
			return 0, fmt.Errorf("read the tool catalog: %w", err)
		}
		if toolsHeader, err = sessionTools(catalog, cfg.Tools.Policy); err != nil {
			return 0, err
		}
	}
	sessions, err := replay.Export(ctx, src, replay.ExportOptions{Filter: filter, Bot: bot, Settings: SessionSettings(cfg), Turn: cfg.Turn,
		Attention: func(id string) string { return string(cfg.Attention.For(id).Mode) }, Tools: toolsHeader})
	if errors.Is(err, state.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	for _, s := range sessions {
		if err := replay.Write(w, s); err != nil {
			return 0, err
		}
	}
	return len(sessions), nil
}
