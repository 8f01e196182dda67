package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/state"
)

// Sender is what the bot needs of an adapter to send through it.
type Sender interface {
	Name() string
	Send(ctx context.Context, out state.Outgoing) (string, error)
}

// typer is the optional typing indicator of an adapter.
type typer interface {
	Typing(ctx context.Context, channelID string) error
}

// Adapter is one platform adapter as the bot sees it.
type Adapter struct {
	Sender
	// SelfQualified adapters put the platform into their ids themselves
	// (Satori beside another adapter, with the platform of each login).
	SelfQualified bool
	// Run receives into the inbox until ctx ends; nil for an adapter the
	// caller drives itself (the console of `airi chat`, a replay's sender).
	Run func(ctx context.Context, in adapters.Inbox) error
	// Ready is closed once the adapter is connected; nil when it has no
	// connection to wait for.
	Ready <-chan struct{}
	// EveryReplica adapters take updates on every replica (a webhook)
	// instead of on the one elected for the adapter's intake.
	EveryReplica bool
}

// router sends each message through the adapter of its channel. With
// several adapters, every channel id the model sees is "platform:id": the
// adapter's name, or for an adapter that qualifies its own ids whatever it
// reports. It is built once, with every adapter of the process.
type router struct {
	adapters []Adapter
}

func newRouter(adapters ...Adapter) *router {
	return &router{adapters: adapters}
}

func (r *router) multi() bool { return len(r.adapters) > 1 }

// serves reports whether the named adapter runs in this process.
func (r *router) serves(name string) bool {
	for _, a := range r.adapters {
		if a.Name() == name {
			return true
		}
	}
	return false
}

// qualify returns the id the model sees for an adapter's own channel id.
func (r *router) qualify(name, id string) string {
	if !r.multi() {
		return id
	}
	for _, a := range r.adapters {
		if a.Name() == name && a.SelfQualified {
			return id
		}
	}
	return name + ":" + id
}

// resolve finds the adapter of a channel and its id there; the sender
// returned is the adapter itself, so its optional abilities (part
// counting, typing) are found by type assertion.
func (r *router) resolve(id string) (Sender, string, error) {
	if len(r.adapters) == 0 {
		return nil, "", errors.New("no adapter is running")
	}
	if !r.multi() {
		return r.adapters[0].Sender, id, nil
	}
	name, rest, ok := strings.Cut(id, ":")
	if ok {
		for _, a := range r.adapters {
			if a.Name() == name && !a.SelfQualified {
				return a.Sender, rest, nil
			}
		}
		for _, a := range r.adapters {
			if a.SelfQualified {
				return a.Sender, id, nil
			}
		}
	}
	return nil, "", fmt.Errorf("channel %q names no running adapter", id)
}

// Send implements actions.Sender.
func (r *router) Send(ctx context.Context, out state.Outgoing) (string, error) {
	a, id, err := r.resolve(out.ChannelID)
	if err != nil {
		return "", err
	}
	out.ChannelID = id
	return a.Send(ctx, out)
}

// Parts implements actions.PartCounter: how many messages the channel's
// adapter would send the message as (one where the adapter does not say).
func (r *router) Parts(out state.Outgoing) int {
	a, id, err := r.resolve(out.ChannelID)
	if err != nil {
		// Send fails the same way and says why.
		return 1
	}
	pc, ok := a.(actions.PartCounter)
	if !ok {
		return 1
	}
	out.ChannelID = id
	return pc.Parts(out)
}

// typing shows a typing indicator where the adapter has one.
func (r *router) typing(log *zap.Logger) func(ctx context.Context, id string) {
	return func(ctx context.Context, id string) {
		a, native, err := r.resolve(id)
		if err != nil {
			return
		}
		if t, ok := a.(typer); ok {
			if err := t.Typing(ctx, native); err != nil && ctx.Err() == nil {
				log.Debug("typing indicator", zap.String("channel", id), zap.Error(err))
			}
		}
	}
}

// inbox is the scheduler seen by one adapter: it qualifies channel ids.
type inbox struct {
	adapter string
	r       *router
	sched   *scheduler.Scheduler
	// cmds answers the admins' "/airi ..." commands; nil without admins.
	cmds *chatCommands
	// store keeps the reactions delivered (reaction.go); onReaction,
	// when set, counts them.
	store      state.Reactions
	onReaction func(channelID, outcome string)
	log        *zap.Logger
}

// Deliver stores the message and wakes its channel.
func (i *inbox) Deliver(ctx context.Context, ch state.Channel, msg state.Message) error {
	if ch.NativeID == "" {
		ch.NativeID = ch.ID
	}
	ch.ID = i.r.qualify(i.adapter, ch.ID)
	if ch.Platform == "" {
		ch.Platform = i.adapter
	}
	msg.ChannelID = ch.ID
	if i.cmds.handle(ctx, ch, msg) {
		return nil
	}
	return i.sched.Deliver(ctx, ch, msg)
}

var (
	_ actions.Sender      = (*router)(nil)
	_ actions.PartCounter = (*router)(nil)
	_ adapters.Inbox      = (*inbox)(nil)
)
