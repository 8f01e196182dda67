package replay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/airi-go/airi/state"
)

// sendFailure returns the error a recorded send failed with, as the
// platform gave it, when the tick's result says the send failed.
func sendFailure(t *Tick) error {
	switch r := t.Result; {
	case strings.Contains(r, " may or may not have gone out"):
		return fmt.Errorf("replay: recorded as of unknown outcome: %w", state.ErrOutcomeUnknown)
	case strings.HasPrefix(r, "send to ") && strings.Contains(r, " failed: "):
		_, msg, _ := strings.Cut(r, " failed: ")
		return errors.New(msg)
	}
	return nil
}

// sent returns the platform id the recording gave the i-th send of the
// call in flight, or the error it failed with.
func (p *player) sent(i int) (string, error) {
	p.mu.Lock()
	k := p.serving
	p.mu.Unlock()
	if k < 0 {
		return "", nil
	}
	n := 0
	for _, e := range p.ticks[k].EffectList() {
		if e.Kind != "send" {
			continue
		}
		if n == i {
			return e.MessageID, nil
		}
		n++
	}
	return "", sendFailure(p.ticks[k])
}

// Adapter is the fake adapter of a replay: it sends nothing anywhere
// (unless told to forward) and answers with the platform ids the recording
// holds, so that message ids in later prompts match. A send the recording
// shows failing fails the same way.
type Adapter struct {
	name string
	p    *player

	mu    sync.Mutex
	calls int // sends of the call in flight
	last  int // recorded tick of those sends
	n     int
}

// Name returns the recorded platform.
func (a *Adapter) Name() string { return a.name }

// Send records the message and, with Options.Forward, passes it on.
func (a *Adapter) Send(ctx context.Context, out state.Outgoing) (string, error) {
	a.p.mu.Lock()
	k := a.p.serving
	a.p.mu.Unlock()
	a.mu.Lock()
	if k != a.last {
		a.last, a.calls = k, 0
	}
	i := a.calls
	a.calls++
	a.n++
	n := a.n
	a.mu.Unlock()
	id, err := a.p.sent(i)
	if err != nil {
		return "", err
	}
	if k < 0 && a.p.isStepping() {
		id = a.p.reminderSent(out)
	}
	if a.p.opt.Forward != nil {
		if _, err := a.p.opt.Forward.Send(ctx, out); err != nil {
			return "", fmt.Errorf("replay: forward send: %w", err)
		}
	}
	if id == "" {
		id = fmt.Sprintf("replay-%d", n)
	}
	return id, nil
}
