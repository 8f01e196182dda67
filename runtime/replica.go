package runtime

import (
	"go.uber.org/zap"

	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/postgres"
)

// newReplica prepares this process as one replica of the bot when the
// store is PostgreSQL; on SQLite it returns nil (one process, every
// channel its own). It does nothing until started with the scheduler it
// tells of the channels it gains.
func newReplica(cfg Config, store state.Store, log *zap.Logger) (*postgres.Replica, error) {
	pg, ok := store.(*postgres.Store)
	if !ok {
		return nil, nil
	}
	return pg.NewReplica(postgres.ReplicaOptions{TTL: cfg.LeaseTTL, Logger: log})
}

// roleName is the intake role of an adapter: one replica at a time polls
// Telegram or holds the Satori connection.
func roleName(adapter string) string { return "intake:" + adapter }
