package runtime

import (
	"context"
	"errors"
	"sync"

	"github.com/airi-go/airi/state"
)

// channelLookup is what servedChannels needs of the store.
type channelLookup interface {
	Channel(ctx context.Context, id string) (state.Channel, error)
}

// servedChannels tells whether a channel belongs to an adapter this
// process runs. A database may hold chats of adapters that are not
// running (Telegram chats under `airi chat`): they are never woken, read
// or answered here, and their unread messages wait for the process that
// runs their adapter.
type servedChannels struct {
	store  channelLookup
	router *router

	mu       sync.Mutex
	platform map[string]string // channel id → its adapter, once known
}

func newServedChannels(store channelLookup, r *router) *servedChannels {
	return &servedChannels{store: store, router: r, platform: map[string]string{}}
}

// allows reports whether the channel's adapter runs in this process. A
// channel the store does not know yet is allowed: it can only come from a
// running adapter.
func (s *servedChannels) allows(id string) bool {
	s.mu.Lock()
	p, ok := s.platform[id]
	s.mu.Unlock()
	if !ok {
		ch, err := s.store.Channel(context.Background(), id)
		switch {
		case errors.Is(err, state.ErrNotFound):
			return true
		case err != nil:
			return false
		}
		p = ch.Platform
		s.mu.Lock()
		s.platform[id] = p
		s.mu.Unlock()
	}
	return s.router.serves(p)
}
