package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"
)

type pgxConn = pgxpool.Conn

func (ro *role) set(held bool) {
	if ro.held == held {
		return
	}
	ro.held = held
	close(ro.changed)
	ro.changed = make(chan struct{})
}

// stepRoles updates the roles this replica competes for: those the
// database still names it for stay held, free ones are taken.
func (r *Replica) stepRoles(ctx context.Context, held map[string]bool) error {
	r.mu.Lock()
	var want []string
	for name, ro := range r.roles {
		if ro.lost {
			want = append(want, name)
			continue
		}
		ro.set(held[name])
		if !held[name] {
			want = append(want, name)
		}
	}
	r.mu.Unlock()
	for _, name := range want {
		var gen int64
		err := r.s.pool.QueryRow(ctx, `INSERT INTO roles (name, holder, generation) VALUES ($1, $2, 1)
ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, generation = roles.generation + 1
WHERE roles.holder = excluded.holder
	OR NOT EXISTS (SELECT 1 FROM replicas r WHERE r.id = roles.holder AND r.expires > now())
RETURNING generation`, name, r.id).Scan(&gen)
		if err == pgx.ErrNoRows {
			continue
		}
		if err != nil {
			return fmt.Errorf("take role %s: %w", name, err)
		}
		r.log.Info("took role", zap.String("role", name), zap.Int64("generation", gen))
		r.mu.Lock()
		if ro := r.roles[name]; ro != nil {
			ro.lost = false
			ro.set(true)
		}
		r.mu.Unlock()
	}
	return nil
}

// roleHeld reports whether the role is held and valid, and the channel
// closed when that changes.
func (r *Replica) roleHeld(name string) (bool, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ro := r.roles[name]
	return ro.held && r.opts.Now().Before(r.deadline), ro.changed
}

// RunRole runs fn while this replica holds the named role (one replica
// at a time holds it: "telegram-polling", "satori"). It waits to be
// elected, runs fn with a context that ends when the role is lost, and
// waits again, until ctx ends. An error from fn that is not due to losing
// the role is returned.
func (r *Replica) RunRole(ctx context.Context, name string, fn func(ctx context.Context) error) error {
	r.mu.Lock()
	if _, dup := r.roles[name]; dup {
		r.mu.Unlock()
		return fmt.Errorf("run role %s: already running", name)
	}
	r.roles[name] = &role{changed: make(chan struct{})}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.roles, name)
		r.mu.Unlock()
		// Give the role up at once so another replica takes it without
		// waiting for the TTL.
		_, _ = r.s.pool.Exec(context.WithoutCancel(ctx), `UPDATE roles SET holder = '' WHERE name = $1 AND holder = $2`, name, r.id)
	}()
	r.poke()
	for {
		held, changed := r.roleHeld(name)
		if !held {
			select {
			case <-ctx.Done():
				return nil
			case <-changed:
			}
			continue
		}
		r.log.Info("running role", zap.String("role", name))
		roleCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- fn(roleCtx) }()
		err := r.watchRole(roleCtx, name, done)
		cancel()
		if err == nil {
			err = <-done
		}
		if ctx.Err() != nil {
			return nil
		}
		if still, _ := r.roleHeld(name); still && err != nil {
			return fmt.Errorf("role %s: %w", name, err)
		}
		r.log.Warn("role lost; taking it again only through the election", zap.String("role", name))
		r.mu.Lock()
		if ro := r.roles[name]; ro != nil {
			ro.lost = true
			ro.set(false)
		}
		r.mu.Unlock()
		r.poke()
	}
}

// watchRole waits until fn ends (returning its error) or the role is lost
// or expires locally (returning nil, fn still running).
func (r *Replica) watchRole(ctx context.Context, name string, done <-chan error) error {
	for {
		held, changed := r.roleHeld(name)
		if !held {
			return nil
		}
		r.mu.Lock()
		left := r.deadline.Sub(r.opts.Now())
		r.mu.Unlock()
		t := time.NewTimer(left)
		select {
		case err := <-done:
			t.Stop()
			if err == nil {
				return errRoleEnded
			}
			return err
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-changed:
		case <-t.C:
		}
		t.Stop()
	}
}

// HoldsRole reports whether this replica holds the named role now.
func (r *Replica) HoldsRole(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	ro := r.roles[name]
	return ro != nil && ro.held && r.opts.Now().Before(r.deadline)
}

// RoleHolder returns the live replica that holds the named role, or ""
// when none does (free, or held by a replica whose heartbeat expired):
// readiness reports a role nobody holds, which means nobody takes the
// platform's messages in.
func (r *Replica) RoleHolder(ctx context.Context, name string) (string, error) {
	var holder string
	err := r.s.pool.QueryRow(ctx, `SELECT coalesce((SELECT ro.holder FROM roles ro JOIN replicas re ON re.id = ro.holder
WHERE ro.name = $1 AND re.expires > now()), '')`, name).Scan(&holder)
	if err != nil {
		return "", fmt.Errorf("read the holder of role %s: %w", name, err)
	}
	return holder, nil
}
