package main

import (
	"context"
	"errors"

	"go.uber.org/zap"

	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/state"
)

// storeConfig is where the configured bot keeps its state.
func (c config) storeConfig() runtime.StoreConfig {
	return runtime.StoreConfig{DatabaseURL: c.DatabaseURL, DBPath: c.DBPath}
}

// openStore opens the configured store for writing (runtime.OpenStore).
func openStore(ctx context.Context, cfg config, log *zap.Logger, migrate bool) (state.Store, error) {
	return runtime.OpenStore(ctx, cfg.storeConfig(), log, migrate)
}

// openStoreReadOnly opens the configured store for commands that only
// read, beside a running bot.
func openStoreReadOnly(ctx context.Context, cfg config, log *zap.Logger) (state.Store, error) {
	return runtime.OpenStoreReadOnly(ctx, cfg.storeConfig(), log)
}

// openOps opens the configured database, which must exist, for operator
// commands beside a bot that may be running; write opens for writing.
func openOps(ctx context.Context, cfg config, log *zap.Logger, write bool) (state.Store, error) {
	return runtime.OpenStoreBeside(ctx, cfg.storeConfig(), log, write)
}

// storeExists reports whether the configured database is there to read.
func storeExists(cfg config) error { return cfg.storeConfig().Exists() }

// openFailureCode is the exit code of a command whose runtime did not
// open: a database that cannot be used as configured is a configuration
// error (exit 2).
func openFailureCode(err error) int {
	var p *runtime.StoreProblemError
	if errors.As(err, &p) {
		return exitUsage
	}
	return exitFailure
}

// rootCause is the innermost error of err's chain (runtime.RootCause).
func rootCause(err error) error { return runtime.RootCause(err) }
