package runtime

import "context"

// Connected blocks until every adapter whose intake this process runs has
// connected to its platform (its Ready is closed), and returns nil; or
// until ctx ends, and returns its error. On PostgreSQL an adapter whose
// intake goes to one replica at a time is not waited for: which replica
// holds it is decided by the election and may be another.
func (b *Bot) Connected(ctx context.Context) error {
	for _, a := range b.router.adapters {
		if a.Ready == nil || (b.replica != nil && !a.EveryReplica) {
			continue
		}
		select {
		case <-a.Ready:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
