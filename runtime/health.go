package runtime

import (
	"context"
	"time"

	"github.com/airi-go/airi/scheduler"
)

// Check is one readiness check of a running bot.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
}

// healthChecker is an adapter that says whether it reaches its platform.
type healthChecker interface{ Health() error }

// writeChecker is a store that says whether its writes succeed (SQLite).
type writeChecker interface{ WriteErr() error }

// pinger is a store that answers a round trip (PostgreSQL).
type pinger interface {
	Ping(ctx context.Context) error
}

// Checks are the bot's readiness checks: the store, each adapter whose
// intake this process runs, the model (failing when it refuses the calls
// or every call has failed for scheduler.DefaultModelGiveUp).
func (b *Bot) Checks(ctx context.Context) []Check {
	checks := []Check{storeCheck(ctx, b.store)}
	for _, a := range b.router.adapters {
		if b.replica != nil && !a.EveryReplica && !b.replica.HoldsRole(roleName(a.Name())) {
			// Another replica runs this adapter's intake, unless none
			// does: then nobody takes the platform's messages in.
			holder, err := b.replica.RoleHolder(ctx, roleName(a.Name()))
			switch {
			case err != nil:
				checks = append(checks, checkErr(a.Name(), err, ""))
			case holder == "":
				checks = append(checks, Check{Name: a.Name(), Detail: "no replica holds the intake role: nobody takes " + a.Name() + " messages in"})
			}
			continue
		}
		checks = append(checks, adapterCheck(a))
	}
	return append(checks, checkErr("model", b.sched.ModelDegraded(ctx, scheduler.DefaultModelGiveUp), "serving"))
}

// checkErr turns an error into a check.
func checkErr(name string, err error, ok string) Check {
	if err != nil {
		return Check{Name: name, Detail: err.Error()}
	}
	return Check{Name: name, OK: true, Detail: ok}
}

// storeCheck reports whether the store takes writes. Stores that cannot
// say pass.
func storeCheck(ctx context.Context, st any) Check {
	switch s := st.(type) {
	case writeChecker:
		return checkErr("store", s.WriteErr(), "writes succeed")
	case pinger:
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		return checkErr("store", s.Ping(pctx), "database answers")
	}
	return Check{Name: "store", OK: true}
}

// adapterCheck reports whether an adapter reaches its platform.
func adapterCheck(ad Adapter) Check {
	if h, ok := ad.Sender.(healthChecker); ok {
		return checkErr(ad.Name(), h.Health(), "connected")
	}
	select {
	case <-ad.Ready:
		return Check{Name: ad.Name(), OK: true, Detail: "connected"}
	default:
		return Check{Name: ad.Name(), Detail: "not connected yet"}
	}
}
