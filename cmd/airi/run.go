package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"runtime/debug"

	"go.uber.org/zap"

	"github.com/airi-go/airi/admin"
)

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
	if err := checkRunConfig(cfg, log); err != nil {
		fmt.Fprintf(a.stderr, "airi run: invalid configuration:\n%v\n", err)
		return exitUsage
	}
	model, err := newModel(cfg, log)
	if err != nil {
		fmt.Fprintf(a.stderr, "airi run: invalid model settings:\n%v\n", err)
		return exitUsage
	}

	srv, err := openServer(ctx, cfg, log, model, !*noMigrate)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi run:", err)
		return exitCode(err)
	}
	closeServer := func() {
		closeCtx, done := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
		defer done()
		if err := srv.Close(closeCtx); err != nil {
			log.Warn("shutdown", zap.Error(err))
		}
	}
	if err := srv.Start(ctx); err != nil {
		closeServer()
		fmt.Fprintln(a.stderr, "airi run:", err)
		return exitFailure
	}
	// Opening the store, the prompts and the adapters leaves garbage the
	// bot never needs again: give its pages back to the system now rather
	// than when the scavenger gets to them.
	debug.FreeOSMemory()
	err = srv.Wait()
	if ctx.Err() != nil {
		log.Info("shutting down")
	}
	closeServer()
	if err != nil {
		fmt.Fprintln(a.stderr, "airi run:", err)
		return exitFailure
	}
	return exitOK
}

// checkRunConfig reports every setting `airi run` cannot start with.
func checkRunConfig(cfg config, log *zap.Logger) error {
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
	return errors.Join(problems...)
}

// checkAdminAddr refuses an admin server reachable beyond loopback
// without a token.
func checkAdminAddr(addr, token string) error { return admin.CheckAddr(addr, token) }
