package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/airi-go/airi/runtime"
)

// chatBanner is the one line `airi chat` prints on a terminal.
func chatBanner(cfg config, bot string) string {
	db := "SQLite " + cfg.DBPath
	if cfg.DatabaseURL != "" {
		db = "PostgreSQL (DATABASE_URL)"
	}
	return fmt.Sprintf("Chatting with %s · model %s at %s · %s · Ctrl-D or Ctrl-C to quit", bot, cfg.LLMModel, cfg.LLMBaseURL, db)
}

// chatLogger is the logger of `airi chat` on a terminal: into file at
// LOG_LEVEL when one is given, otherwise on the screen at warn and above,
// so that info lines do not mix into the conversation. It returns the
// line saying where the logs go.
func chatLogger(cfg config, file string, screen io.Writer) (*zap.Logger, func(), string, error) {
	if file != "" {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, "", fmt.Errorf("--log: %w", err)
		}
		log, err := newLogger(f, cfg.LogLevel, cfg.LogFormat)
		if err != nil {
			_ = f.Close()
			return nil, nil, "", err
		}
		return log, func() { _ = log.Sync(); _ = f.Close() }, fmt.Sprintf("Logs (%s and above) go to %s", cfg.LogLevel, file), nil
	}
	level := cfg.LogLevel
	if l, err := zapcore.ParseLevel(level); err == nil && l < zapcore.WarnLevel {
		level = "warn"
	}
	format := cfg.LogFormat
	if format == "" {
		format = "console"
	}
	log, err := newLogger(screen, level, format)
	if err != nil {
		return nil, nil, "", err
	}
	return log, func() { _ = log.Sync() }, fmt.Sprintf("Logs: %s and above here; --log FILE writes every line at LOG_LEVEL=%s to FILE", level, cfg.LogLevel), nil
}

// gaveUp reports, once every model call has failed for at least d, the
// line `airi chat` exits with.
func gaveUp(rt *runtime.Bot, d time.Duration, now time.Time) (string, bool) {
	since, last := rt.Scheduler().ModelFailing()
	if since.IsZero() || now.Sub(since) < d {
		return "", false
	}
	return fmt.Sprintf("gave up after the model failed for %s (LLM_GIVE_UP=%s): %s", now.Sub(since).Round(time.Second), d, last), true
}

// unreadReport says how many messages of the channel stay unread.
func unreadReport(ctx context.Context, rt *runtime.Bot, channel string) string {
	counts, err := rt.Store().UnreadCounts(ctx)
	if err != nil || counts[channel] == 0 {
		return ""
	}
	return fmt.Sprintf("; %d message(s) stay unread and are answered by the next airi chat", counts[channel])
}
