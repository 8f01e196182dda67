package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sync/errgroup"

	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/adapters/satori"
	"github.com/airi-go/airi/adapters/telegram"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/postgres"
)

// server is the bot of `airi run`. openServer wires it in order, each part
// complete before the next is given it: the store, the metrics, the
// adapters, the router, the runtime, the admin server. Start runs it;
// Close stops it.
type server struct {
	cfg      config
	log      *zap.Logger
	rt       *bot
	metrics  *metrics
	adapters []adapter
	// replica is this process's share of the bot on PostgreSQL; nil on SQLite.
	replica *postgres.Replica
	admin   *adminServer
	ln      net.Listener
	// hook takes Telegram's webhook requests; nil when Telegram polls.
	hook *webhookServer

	// cancel ends the context of everything Start started; group owns the
	// goroutines: the admin server, the webhook server, the prompt watcher,
	// the retention sweep and the adapters.
	cancel context.CancelFunc
	group  *errgroup.Group
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

// openServer wires the bot of `airi run`. What it opened is closed again
// when a later step fails.
func openServer(ctx context.Context, cfg config, log *zap.Logger, model planner.Model, migrate bool) (_ *server, err error) {
	s := &server{log: log}
	store, err := openStore(ctx, cfg, log, migrate)
	if err != nil {
		return nil, err
	}
	handedOver := false // to the runtime, which closes the store from then on
	defer func() {
		if err != nil && !handedOver {
			_ = store.Close()
		}
	}()
	s.replica, err = newReplica(cfg, store, log)
	if err != nil {
		return nil, &codedError{exitUsage, err}
	}
	s.metrics = newMetrics(unreadTotal(store))
	s.adapters, err = buildAdapters(cfg, store, log)
	if err != nil {
		return nil, &codedError{exitUsage, err}
	}
	p, err := loadPersona(cfg, log)
	if err != nil {
		return nil, err
	}
	handedOver = true
	s.rt, err = openRuntime(cfg, log, runtimeOptions{
		Model: model, Store: store, Persona: p, Router: newRouter(s.adapters...),
		Leases: leases(s.replica), ServedOnly: true, OnTick: s.metrics.observe,
		OnWake: func(_, reason string) { s.metrics.wakes.WithLabelValues(reason).Inc() },
		OnSkip: func(_, reason string) { s.metrics.skipped.WithLabelValues(reason).Inc() },
	})
	if err != nil {
		return nil, err
	}
	// The budgets are the runtime's; nothing reads the metrics before Start.
	s.rt.registerBudget(s.metrics, time.Now)
	s.ln, err = net.Listen("tcp", cfg.AdminAddr)
	if err != nil {
		s.rt.close()
		return nil, &codedError{exitFailure, fmt.Errorf("admin server on %s: %w", cfg.AdminAddr, err)}
	}
	if cfg.TelegramWebhookURL != "" {
		s.hook, err = listenWebhook(cfg, log)
		if err != nil {
			_ = s.ln.Close()
			s.rt.close()
			return nil, &codedError{exitFailure, err}
		}
	}
	s.admin = &adminServer{token: cfg.AdminToken, store: store, metrics: s.metrics, log: log.Named("admin"), checks: s.checks,
		badges: channelBadges(cfg.Attention, s.rt.budget, time.Now)}
	s.cfg = cfg
	return s, nil
}

// registerBudget adds the budgets' use to the metrics, when a budget is set.
func (rt *bot) registerBudget(m *metrics, now func() time.Time) {
	if rt.budget == nil {
		return
	}
	m.reg.MustRegister(newBudgetCollector(rt.budget, func() []string {
		chans, err := rt.store.Channels(context.Background())
		if err != nil {
			return nil
		}
		ids := make([]string, len(chans))
		for i, c := range chans {
			ids[i] = c.ID
		}
		return ids
	}, now))
}

// buildAdapters makes every adapter whose variables are set.
func buildAdapters(cfg config, cursors adapters.Cursors, log *zap.Logger) ([]adapter, error) {
	var out []adapter
	if cfg.TelegramToken != "" {
		tg, err := telegram.New(telegram.Config{Token: cfg.TelegramToken, APIBaseURL: cfg.TelegramAPIBaseURL,
			WebhookURL: cfg.TelegramWebhookURL, WebhookSecret: cfg.TelegramWebhookSecret}, cursors, log)
		if err != nil {
			return nil, fmt.Errorf("telegram adapter: %w", err)
		}
		out = append(out, adapter{sender: tg, run: tg.Run, ready: tg.Ready(), everyReplica: cfg.TelegramWebhookURL != ""})
	}
	if cfg.SatoriWSURL != "" {
		// With another adapter beside it, Satori ids carry their login's
		// platform ("qq:12345") from the start.
		qualify := cfg.TelegramToken != ""
		sa, err := satori.New(satori.Config{WSURL: cfg.SatoriWSURL, APIBaseURL: cfg.SatoriAPIBaseURL, Token: cfg.SatoriToken, Qualify: qualify}, cursors, log)
		if err != nil {
			return nil, fmt.Errorf("satori adapter: %w", err)
		}
		out = append(out, adapter{sender: sa, run: sa.Run, ready: sa.Ready(), selfQualified: qualify})
	}
	return out, nil
}

// unreadTotal counts the unread messages of every channel, for the metrics.
func unreadTotal(store state.Store) func() float64 {
	return func() float64 {
		counts, err := store.UnreadCounts(context.Background())
		if err != nil {
			return 0
		}
		n := 0
		for _, c := range counts {
			n += c
		}
		return float64(n)
	}
}

// checks are the readiness checks of /readyz: the store, each adapter
// whose intake this process runs, the model.
func (s *server) checks(ctx context.Context) []readyCheck {
	checks := []readyCheck{storeCheck(ctx, s.rt.store)}
	for _, a := range s.adapters {
		if s.replica != nil && !a.everyReplica && !s.replica.HoldsRole(roleName(a.Name())) {
			continue // another replica runs this adapter's intake
		}
		checks = append(checks, adapterCheck(a))
	}
	return append(checks, checkErr("model", s.rt.sched.ModelErr(), "not refusing calls"))
}

// adminAddr is the address the admin server listens on.
func (s *server) adminAddr() string { return s.ln.Addr().String() }

// Start starts the replica (on PostgreSQL), the scheduler, and the
// goroutines of the admin and webhook servers, the prompt watcher, the
// retention sweep and each adapter's intake; they run until ctx ends, one of them fails, or Close.
func (s *server) Start(ctx context.Context) error {
	runCtx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	if s.replica != nil {
		if err := s.replica.Start(runCtx, s.rt.sched); err != nil {
			return err
		}
	}
	if err := s.rt.sched.Start(runCtx); err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(runCtx)
	s.group = g
	// An error once the context ended is the goroutine stopping, not a failure.
	spawn := func(f func(ctx context.Context) error) {
		g.Go(func() error {
			if err := f(gctx); err != nil && gctx.Err() == nil {
				return err
			}
			return nil
		})
	}
	spawn(func(ctx context.Context) error { return s.admin.serve(ctx, s.ln) })
	if s.hook != nil {
		for _, a := range s.adapters {
			if tg, ok := a.sender.(*telegram.Adapter); ok {
				spawn(func(ctx context.Context) error { return s.hook.serve(ctx, tg.Webhook(s.rt.inbox(a.Name()))) })
			}
		}
	}
	spawn(s.rt.prompts.Watch)
	spawn(func(ctx context.Context) error { return retain(ctx, s.rt.store, s.cfg, s.log.Named("retention")) })
	for _, a := range s.adapters {
		spawn(func(ctx context.Context) error {
			if err := s.intake(ctx, a); err != nil {
				return fmt.Errorf("%s adapter: %w", a.Name(), err)
			}
			return nil
		})
	}
	return nil
}

// intake runs an adapter's intake; on PostgreSQL one replica at a time
// takes the platform's updates, unless every replica takes them (a webhook).
func (s *server) intake(ctx context.Context, a adapter) error {
	run := func(ctx context.Context) error { return a.run(ctx, s.rt.inbox(a.Name())) }
	if s.replica == nil || a.everyReplica {
		return run(ctx)
	}
	return s.replica.RunRole(ctx, roleName(a.Name()), run)
}

// Wait blocks until the context given to Start ends or one of the
// server's goroutines fails, and returns that failure (nil when the
// context ended). The other goroutines have stopped when it returns.
func (s *server) Wait() error {
	if s.group == nil {
		return nil
	}
	return s.group.Wait()
}

// Close stops the server within ctx's deadline: it cancels what Start
// started, stops the scheduler (in-flight ticks end), waits for the
// goroutines, gives up the replica's leases and roles, then closes the
// store and releases its lock. It reports what did not stop in time.
func (s *server) Close(ctx context.Context) error {
	if s.cancel != nil {
		s.cancel()
	}
	var errs []error
	if err := s.rt.sched.Close(ctx); err != nil {
		errs = append(errs, err)
	}
	if s.group != nil {
		stopped := make(chan struct{})
		go func() {
			_ = s.group.Wait()
			close(stopped)
		}()
		select {
		case <-stopped:
		case <-ctx.Done():
			errs = append(errs, fmt.Errorf("stop the adapters and the admin server: %w", ctx.Err()))
		}
	} else {
		// Start did not get as far as serving: the listeners are still ours.
		_ = s.ln.Close()
		if s.hook != nil {
			_ = s.hook.ln.Close()
		}
	}
	if s.replica != nil {
		if err := s.replica.Close(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	s.rt.close()
	return errors.Join(errs...)
}
