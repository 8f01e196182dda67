package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/airi-go/airi/state/postgres"
	"github.com/airi-go/airi/state/sqlite"
)

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
