package adapters

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrNotConnected is what Link.Err reports before the first connection.
var ErrNotConnected = errors.New("not connected yet")

// Link follows whether an adapter is connected to its platform: a
// Telegram poller whose last poll succeeded, a Satori event stream that is
// open. Readiness checks read it. The zero value is a link not connected
// yet; it is safe for concurrent use.
type Link struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu    sync.Mutex
	ever  bool
	up    bool
	since time.Time
	err   error
}

func (l *Link) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

// Up records that the adapter reached its platform.
func (l *Link) Up() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.up {
		l.since = l.now()
	}
	l.ever, l.up, l.err = true, true, nil
}

// Down records that the adapter lost its platform, and why.
func (l *Link) Down(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.up || l.since.IsZero() {
		l.since = l.now()
	}
	l.up, l.err = false, err
}

// Err returns nil while the link is up, ErrNotConnected before it was
// ever up, and otherwise why it went down and since when.
func (l *Link) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.up:
		return nil
	case !l.ever && l.err == nil:
		return ErrNotConnected
	case !l.ever:
		return fmt.Errorf("not connected yet: %w", l.err)
	}
	return fmt.Errorf("disconnected since %s: %w", l.since.UTC().Format(time.RFC3339), l.err)
}
