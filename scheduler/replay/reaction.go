package replay

import (
	"context"
	"fmt"

	"github.com/airi-go/airi/state"
)

// reactor is the ability of a forwarding sender to put reactions on
// messages.
type reactor interface {
	React(ctx context.Context, r state.Reacting) error
}

// React accepts a reaction of the replayed model, as the recording's
// platform did, and with Options.Forward passes it on where the sender
// takes reactions.
func (a *Adapter) React(ctx context.Context, r state.Reacting) error {
	if f, ok := a.p.opt.Forward.(reactor); ok {
		if err := f.React(ctx, r); err != nil {
			return fmt.Errorf("replay: forward reaction: %w", err)
		}
	}
	return nil
}
