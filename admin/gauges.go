package admin

import (
	"context"

	"github.com/airi-go/airi/state"
)

// ChannelIDs lists the ids of the store's channels, for the budget
// metrics; a store that fails lists none.
func ChannelIDs(store interface {
	Channels(context.Context) ([]state.Channel, error)
}) func() []string {
	return func() []string {
		chans, err := store.Channels(context.Background())
		if err != nil {
			return nil
		}
		ids := make([]string, len(chans))
		for i, c := range chans {
			ids[i] = c.ID
		}
		return ids
	}
}

// UnreadTotal counts the unread messages of every channel, for the
// metrics; a store that fails counts none.
func UnreadTotal(store interface {
	UnreadCounts(context.Context) (map[string]int, error)
}) func() float64 {
	return func() float64 {
		counts, err := store.UnreadCounts(context.Background())
		if err != nil {
			return 0
		}
		n := 0
		for _, c := range counts {
			n += c
		}
		return float64(n)
	}
}
