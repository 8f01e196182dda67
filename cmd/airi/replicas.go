package main

import (
	"context"

	"go.uber.org/zap"

	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/postgres"
)

// newReplica prepares this process as one replica of the bot when the
// store is PostgreSQL; on SQLite it returns nil (one process, every
// channel its own). rt is read when leases are gained, after the runtime
// is wired.
func newReplica(cfg config, store state.Store, rt func() *bot, log *zap.Logger) (*postgres.Replica, error) {
	pg, ok := store.(*postgres.Store)
	if !ok {
		return nil, nil
	}
	return pg.NewReplica(postgres.ReplicaOptions{
		TTL:    cfg.LeaseTTL,
		Logger: log,
		OnGain: func(id string) {
			if b := rt(); b != nil {
				b.sched.Resume(context.Background(), id)
			}
		},
		OnMessage: func(id string) {
			if b := rt(); b != nil {
				b.sched.MessageStored(id)
			}
		},
	})
}

// leases is the replica as the scheduler sees it (nil on SQLite).
func leases(r *postgres.Replica) scheduler.Leases {
	if r == nil {
		return nil
	}
	return r
}

// roleName is the intake role of an adapter: one replica at a time polls
// Telegram or holds the Satori connection.
func roleName(adapter string) string { return "intake:" + adapter }
