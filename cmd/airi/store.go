package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"go.uber.org/zap"

	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/postgres"
	"github.com/airi-go/airi/state/sqlite"
)

// Both engines keep the token use of the daily budgets, so a budget runs
// on either.
var (
	_ budget.Store = (*sqlite.Store)(nil)
	_ budget.Store = (*postgres.Store)(nil)
)

// openStore opens the configured store for writing: PostgreSQL when
// DATABASE_URL is set, otherwise the SQLite file at DB_PATH (which always
// migrates), whose store holds the exclusive lock beside it until it is
// closed. On PostgreSQL migrate applies pending
// migrations; without it a schema that is behind is an error asking for
// `airi migrate`. Several replicas share PostgreSQL through leases, so
// there is no lock.
func openStore(ctx context.Context, cfg config, log *zap.Logger, migrate bool) (state.Store, error) {
	if cfg.DatabaseURL != "" {
		s, err := postgres.Open(ctx, cfg.DatabaseURL, log, postgres.Options{Migrate: migrate})
		if err != nil {
			return nil, fmt.Errorf("open database at DATABASE_URL: %w", err)
		}
		return s, nil
	}
	s, err := openDatabase(ctx, cfg.DBPath, log)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// openStoreReadOnly opens the configured store for commands that only
// read: a SQLite file without the lock and without writing, so that they
// work beside a running bot.
func openStoreReadOnly(ctx context.Context, cfg config, log *zap.Logger) (state.Store, error) {
	if cfg.DatabaseURL != "" {
		s, err := postgres.Open(ctx, cfg.DatabaseURL, log, postgres.Options{})
		if err != nil {
			return nil, fmt.Errorf("open database at DATABASE_URL: %w", err)
		}
		return s, nil
	}
	s, err := sqlite.OpenReadOnly(ctx, cfg.DBPath, log)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", cfg.DBPath, err)
	}
	return s, nil
}

// storeExists reports, for commands that only read, whether the configured
// database is there to read.
func storeExists(cfg config) error {
	if cfg.DatabaseURL != "" {
		return nil
	}
	if _, err := os.Stat(cfg.DBPath); err != nil {
		return fmt.Errorf("no database at DB_PATH=%s: %w", cfg.DBPath, err)
	}
	return nil
}

// cmdMigrate applies the pending migrations of the configured database:
// for operators who run migrations as their own step before a deploy.
func (a *app) cmdMigrate(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	var cf commonFlags
	cf.register(fs)
	if code, ok := a.parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(a.stderr, "airi migrate: takes no arguments")
		return exitUsage
	}
	cfg, log, code := a.setup("migrate", cf)
	if code != exitOK {
		return code
	}
	defer func() { _ = log.Sync() }()
	if cfg.DatabaseURL == "" {
		// SQLite migrates whenever the file is opened, also beside a
		// running bot.
		s, err := sqlite.OpenShared(ctx, cfg.DBPath, log)
		if err != nil {
			fmt.Fprintln(a.stderr, "airi migrate:", err)
			return exitFailure
		}
		defer s.Close()
		fmt.Fprintf(a.stdout, "SQLite database %s is at schema version %d\n", cfg.DBPath, sqlite.SchemaVersion())
		return exitOK
	}
	s, err := postgres.Open(ctx, cfg.DatabaseURL, log, postgres.Options{Migrate: true})
	if err != nil {
		fmt.Fprintln(a.stderr, "airi migrate:", err)
		return exitFailure
	}
	defer s.Close()
	v, err := s.Version(ctx)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi migrate:", err)
		return exitFailure
	}
	fmt.Fprintf(a.stdout, "PostgreSQL schema %s is at version %d\n", s.Schema(), v)
	return exitOK
}
