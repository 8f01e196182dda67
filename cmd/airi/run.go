package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/adapters/satori"
	"github.com/airi-go/airi/adapters/telegram"
	"github.com/airi-go/airi/state"
)

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

// runnable is an adapter the bot runs: it receives into an inbox and sends.
type runnable struct {
	sender
	run   func(ctx context.Context, in *inbox) error
	ready <-chan struct{}
	// selfQualified adapters put the platform into their ids themselves.
	selfQualified bool
	// everyReplica adapters take updates on every replica (a webhook)
	// instead of on the one elected for the adapter's intake.
	everyReplica bool
}

// buildAdapters makes every adapter whose variables are set.
func buildAdapters(cfg config, cursors state.Store, log *zap.Logger) ([]runnable, error) {
	var out []runnable
	if cfg.TelegramToken != "" {
		tg, err := telegram.New(telegram.Config{Token: cfg.TelegramToken, APIBaseURL: cfg.TelegramAPIBaseURL,
			WebhookURL: cfg.TelegramWebhookURL, WebhookSecret: cfg.TelegramWebhookSecret}, cursors, log)
		if err != nil {
			return nil, fmt.Errorf("telegram adapter: %w", err)
		}
		out = append(out, runnable{sender: tg, ready: tg.Ready(), everyReplica: cfg.TelegramWebhookURL != "",
			run: func(ctx context.Context, in *inbox) error { return tg.Run(ctx, in) }})
	}
	if cfg.SatoriWSURL != "" {
		// With another adapter beside it, Satori ids carry their login's
		// platform ("qq:12345") from the start.
		qualify := cfg.TelegramToken != ""
		sa, err := satori.New(satori.Config{WSURL: cfg.SatoriWSURL, APIBaseURL: cfg.SatoriAPIBaseURL, Token: cfg.SatoriToken, Qualify: qualify}, cursors, log)
		if err != nil {
			return nil, fmt.Errorf("satori adapter: %w", err)
		}
		out = append(out, runnable{sender: sa, ready: sa.Ready(), selfQualified: true, run: func(ctx context.Context, in *inbox) error { return sa.Run(ctx, in) }})
	}
	return out, nil
}

func (a *app) cmdRun(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	var cf commonFlags
	cf.register(fs)
	noMigrate := fs.Bool("no-migrate", false, "on PostgreSQL, do not apply pending migrations (run `airi migrate` first)")
	if code, ok := a.parseFlags(fs, args); !ok {
		return code
	}
	cfg, log, code := a.setup("run", cf)
	if code != exitOK {
		return code
	}
	defer func() { _ = log.Sync() }()
	var problems []error
	if cfg.TelegramToken == "" && cfg.SatoriWSURL == "" {
		problems = append(problems, errors.New("no adapter is configured: set TELEGRAM_BOT_TOKEN or SATORI_WS_URL (to talk to the bot in this terminal, use `airi chat`)"))
	}
	if err := cfg.requireModel(); err != nil {
		problems = append(problems, err)
	}
	// Every setting is checked before the database is created.
	if _, err := buildAdapters(cfg, nil, log); err != nil {
		problems = append(problems, err)
	}
	if err := checkAdminAddr(cfg.AdminAddr, cfg.AdminToken); err != nil {
		problems = append(problems, err)
	}
	if err := errors.Join(problems...); err != nil {
		fmt.Fprintf(a.stderr, "airi run: invalid configuration:\n%v\n", err)
		return exitUsage
	}
	model, err := newModel(cfg, log)
	if err != nil {
		fmt.Fprintf(a.stderr, "airi run: invalid model settings:\n%v\n", err)
		return exitUsage
	}

	store, lock, err := openStore(ctx, cfg, log, !*noMigrate)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi run:", err)
		return openFailureCode(err)
	}
	var rt *bot
	rep, err := newReplica(cfg, store, func() *bot { return rt }, log)
	if err != nil {
		_ = store.Close()
		lock.release()
		fmt.Fprintln(a.stderr, "airi run:", err)
		return exitUsage
	}
	var m *metrics
	r := &router{}
	rt, err = openRuntime(ctx, cfg, log, runtimeOptions{
		Model: model, Router: r, Store: store, Lock: lock, Leases: leases(rep), ServedOnly: true,
		OnTick: func(t state.Tick) {
			if m != nil {
				m.observe(t)
			}
		},
		OnWake: func(_, reason string) {
			if m != nil {
				m.wakes.WithLabelValues(reason).Inc()
			}
		},
		OnSkip: func(_, reason string) {
			if m != nil {
				m.skipped.WithLabelValues(reason).Inc()
			}
		},
	})
	if err != nil {
		fmt.Fprintln(a.stderr, "airi run:", err)
		return openFailureCode(err)
	}
	defer rt.close()
	m = newMetrics(func() float64 {
		counts, err := rt.store.UnreadCounts(context.Background())
		if err != nil {
			return 0
		}
		n := 0
		for _, c := range counts {
			n += c
		}
		return float64(n)
	})
	rt.registerBudget(m, time.Now)
	adapters, err := buildAdapters(cfg, rt.store, log)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi run:", err)
		return exitUsage
	}
	r.selfQualified = map[string]bool{}
	for _, ad := range adapters {
		r.adapters = append(r.adapters, ad.sender)
		r.selfQualified[ad.Name()] = ad.selfQualified
	}

	ln, err := net.Listen("tcp", cfg.AdminAddr)
	if err != nil {
		fmt.Fprintf(a.stderr, "airi run: admin server on %s: %v\n", cfg.AdminAddr, err)
		return exitFailure
	}
	var hook *webhookServer
	if cfg.TelegramWebhookURL != "" {
		hook, err = listenWebhook(cfg, log)
		if err != nil {
			_ = ln.Close()
			fmt.Fprintln(a.stderr, "airi run:", err)
			return exitFailure
		}
	}
	admin := &adminServer{token: cfg.AdminToken, store: rt.store, metrics: m, log: log.Named("admin"), checks: func(ctx context.Context) []readyCheck {
		checks := []readyCheck{storeCheck(ctx, rt.store)}
		for _, ad := range adapters {
			if rep != nil && !ad.everyReplica && !rep.HoldsRole(roleName(ad.Name())) {
				continue // another replica runs this adapter's intake
			}
			checks = append(checks, adapterCheck(ad))
		}
		return append(checks, checkErr("model", rt.sched.ModelErr(), "not refusing calls"))
	}}
	admin.badges = channelBadges(cfg.Attention, rt.budget, time.Now)

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if rep != nil {
		if err := rep.Start(runCtx); err != nil {
			fmt.Fprintln(a.stderr, "airi run:", err)
			_ = ln.Close()
			return exitFailure
		}
	}
	if err := rt.sched.Start(runCtx); err != nil {
		fmt.Fprintln(a.stderr, "airi run:", err)
		_ = ln.Close()
		return exitFailure
	}
	var wg sync.WaitGroup
	errc := make(chan error, len(adapters)+2)
	spawn := func(f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(); err != nil && runCtx.Err() == nil {
				errc <- err
			}
		}()
	}
	spawn(func() error { return admin.serve(runCtx, ln) })
	if hook != nil {
		for _, ad := range adapters {
			if tg, ok := ad.sender.(*telegram.Adapter); ok {
				spawn(func() error { return hook.serve(runCtx, tg.Webhook(rt.inbox(ad.Name()))) })
			}
		}
	}
	spawn(func() error { return rt.prompts.Watch(runCtx) })
	if ops, ok := rt.store.(opsStore); ok {
		spawn(func() error { return retain(runCtx, ops, cfg, log.Named("retention")) })
	}
	for _, ad := range adapters {
		spawn(func() error {
			run := func(ctx context.Context) error { return ad.run(ctx, rt.inbox(ad.Name())) }
			if rep != nil && !ad.everyReplica {
				// One replica at a time takes the platform's updates.
				inner := run
				run = func(ctx context.Context) error { return rep.RunRole(ctx, roleName(ad.Name()), inner) }
			}
			if err := run(runCtx); err != nil {
				return fmt.Errorf("%s adapter: %w", ad.Name(), err)
			}
			return nil
		})
	}
	log.Info("airi is running", zap.String("admin", ln.Addr().String()), zap.Int("adapters", len(adapters)), zap.String("bot", rt.botName))

	code = exitOK
	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case err := <-errc:
		fmt.Fprintln(a.stderr, "airi run:", err)
		code = exitFailure
	}
	cancel()
	closeCtx, done := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer done()
	if err := rt.sched.Close(closeCtx); err != nil {
		log.Warn("shutdown", zap.Error(err))
	}
	wg.Wait()
	if rep != nil {
		if err := rep.Close(closeCtx); err != nil {
			log.Warn("shutdown", zap.Error(err))
		}
	}
	return code
}
