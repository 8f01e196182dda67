package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/adapters/console"
	"github.com/airi-go/airi/adapters/satori"
	"github.com/airi-go/airi/adapters/telegram"
	"github.com/airi-go/airi/admin"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/openai"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/state"
)

// server is the bot of `airi run` with its admin server and, when Telegram
// takes a webhook, the webhook's server; both run as goroutines of the bot.
type server struct {
	bot      *runtime.Bot
	ln       net.Listener
	hook     *runtime.WebhookServer
	adapters int
}

// codedError is an error that says which exit code it calls for.
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

// exitCode is the exit code an error of opening the bot calls for.
func exitCode(err error) int {
	var c *codedError
	if errors.As(err, &c) {
		return c.code
	}
	return openFailureCode(err)
}

// openServer wires the bot of `airi run` in order, each part complete
// before the next is given it: the store, the metrics, the adapters, the
// bot, the admin server. What it opened is closed again when a later step
// fails.
func openServer(ctx context.Context, cfg config, log *zap.Logger, model planner.Model, migrate bool) (_ *server, err error) {
	store, err := openStore(ctx, cfg, log, migrate)
	if err != nil {
		return nil, err
	}
	metrics := admin.NewMetrics(admin.UnreadTotal(store))
	ads, err := buildAdapters(cfg, store, log)
	if err != nil {
		_ = store.Close()
		return nil, &codedError{exitUsage, err}
	}
	vision, speech, err := runtime.MediaModels(openai.Config{BaseURL: cfg.LLMBaseURL, APIKey: cfg.LLMKey, Timeout: cfg.LLMTimeout}, cfg.Vision, cfg.Speech, log)
	if err != nil {
		_ = store.Close()
		return nil, &codedError{exitUsage, err}
	}
	rc := cfg.runtime()
	rc.ServedOnly, rc.Replica = true, true
	bot, err := runtime.New(rc, runtime.Deps{
		Model: model, Store: store, Adapters: ads, Logger: log, OnTick: metrics.Observe,
		Vision: vision, Speech: speech, OnMedia: metrics.Media,
		OnWake:     func(_, reason string) { metrics.Wake(reason) },
		OnSkip:     func(_, reason string) { metrics.Skip(reason) },
		OnReaction: func(_, outcome string) { metrics.Reaction(outcome) },
		OnToolCall: metrics.ToolCall,
	})
	if err != nil {
		// The bot closed the store.
		var cerr *runtime.ConfigError
		if errors.As(err, &cerr) {
			return nil, &codedError{exitUsage, err}
		}
		return nil, err
	}
	s := &server{bot: bot, adapters: len(ads)}
	defer func() {
		if err != nil {
			_ = s.Close(context.WithoutCancel(ctx))
		}
	}()
	metrics.RegisterReminders(bot.ReminderCounts())
	// The budgets are the bot's; nothing reads the metrics before Start.
	if t := bot.Budget(); t != nil {
		metrics.RegisterBudget(t, admin.ChannelIDs(store), time.Now)
	}
	s.ln, err = net.Listen("tcp", cfg.AdminAddr)
	if err != nil {
		return nil, &codedError{exitFailure, fmt.Errorf("admin server on %s: %w", cfg.AdminAddr, err)}
	}
	if cfg.TelegramWebhookURL != "" {
		s.hook, err = runtime.ListenWebhook(cfg.TelegramWebhookURL, cfg.WebhookAddr, log)
		if err != nil {
			return nil, &codedError{exitFailure, err}
		}
		for _, a := range ads {
			if tg, ok := a.Sender.(*telegram.Adapter); ok {
				bot.Go(func(ctx context.Context) error { return s.hook.Serve(ctx, tg.Webhook(bot.Inbox(a.Name()))) })
			}
		}
	}
	srv := admin.New(admin.Options{Token: cfg.AdminToken, Store: store, Metrics: metrics, Logger: log.Named("admin"),
		Checks: func(ctx context.Context) []admin.Check {
			var out []admin.Check
			for _, c := range bot.Checks(ctx) {
				out = append(out, admin.Check(c))
			}
			return out
		},
		Status: func(ctx context.Context) admin.Status {
			st := admin.Status{Alert: bot.Alert()}
			for _, c := range bot.Status(ctx) {
				st.Facts = append(st.Facts, admin.Check(c))
			}
			return st
		},
		Badges: admin.ChannelBadges(cfg.Attention, bot.Budget(), time.Now)})
	bot.Go(func(ctx context.Context) error { return srv.Serve(ctx, s.ln) })
	// "running" means the adapters are connected: a refused token fails
	// the bot before it is logged.
	bot.Go(func(ctx context.Context) error {
		if bot.Connected(ctx) == nil {
			log.Info("airi is running", zap.String("admin", s.adminAddr()), zap.Int("adapters", s.adapters), zap.String("bot", bot.Name()))
		}
		return nil
	})
	return s, nil
}

// buildAdapters makes every adapter whose variables are set.
func buildAdapters(cfg config, cursors adapters.Cursors, log *zap.Logger) ([]runtime.Adapter, error) {
	var out []runtime.Adapter
	if cfg.TelegramToken != "" {
		tg, err := telegram.New(telegram.Config{Token: cfg.TelegramToken, APIBaseURL: cfg.TelegramAPIBaseURL,
			WebhookURL: cfg.TelegramWebhookURL, WebhookSecret: cfg.TelegramWebhookSecret, MediaMaxBytes: cfg.Media.MaxBytes}, cursors, log)
		if err != nil {
			return nil, fmt.Errorf("telegram adapter: %w", err)
		}
		out = append(out, runtime.Adapter{Sender: tg, Run: tg.Run, Ready: tg.Ready(), EveryReplica: cfg.TelegramWebhookURL != ""})
	}
	if cfg.SatoriWSURL != "" {
		// With another adapter beside it, Satori ids carry their login's
		// platform ("qq:12345") from the start.
		qualify := cfg.TelegramToken != ""
		sa, err := satori.New(satori.Config{WSURL: cfg.SatoriWSURL, APIBaseURL: cfg.SatoriAPIBaseURL, Token: cfg.SatoriToken, Qualify: qualify, MediaHosts: cfg.MediaHosts}, cursors, log)
		if err != nil {
			return nil, fmt.Errorf("satori adapter: %w", err)
		}
		out = append(out, runtime.Adapter{Sender: sa, Run: sa.Run, Ready: sa.Ready(), SelfQualified: qualify})
	}
	return out, nil
}

// adminAddr is the address the admin server listens on.
func (s *server) adminAddr() string { return s.ln.Addr().String() }

// Start starts the bot and with it the admin and webhook servers.
func (s *server) Start(ctx context.Context) error { return s.bot.Start(ctx) }

// Wait blocks until the bot stops; see runtime.Bot.Wait.
func (s *server) Wait() error { return s.bot.Wait() }

// Close stops the bot within ctx's deadline (see runtime.Bot.Close), then
// closes the listeners a server that never started still holds.
func (s *server) Close(ctx context.Context) error {
	err := s.bot.Close(ctx)
	if s.ln != nil {
		_ = s.ln.Close()
	}
	if s.hook != nil {
		_ = s.hook.Close()
	}
	return err
}

// The adapters depend on the domain only; the wiring checks here that each
// one is what the bot needs of it.
var (
	_ runtime.Sender      = (*console.Adapter)(nil)
	_ runtime.Sender      = (*satori.Adapter)(nil)
	_ runtime.Sender      = (*telegram.Adapter)(nil)
	_ actions.PartCounter = (*telegram.Adapter)(nil)
	_ adapters.Cursors    = state.Store(nil)
)
