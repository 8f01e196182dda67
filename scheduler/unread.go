package scheduler

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/airi-go/airi/planner"
)

// Past manyUnread channels with unread messages, the state message's
// counts of the other channels come from a snapshot shared by every tick
// and at most unreadSnapshotAge old, instead of one query per tick: in a
// burst of a thousand chats, counting all of them for each of their ticks
// costs more than the ticks. The counts of a tick's own channel stay
// exact, and so do all counts below manyUnread channels.
const (
	manyUnread         = 64
	unreadSnapshotAge  = 250 * time.Millisecond
	unreadSnapshotKeep = planner.MaxUnreadListed + 1
)

// unreadSnapshot is the shared view of the other channels' unread counts.
type unreadSnapshot struct {
	mu sync.Mutex
	at time.Time
	// top are the allowed channels with the most unread messages, most
	// first; all has every allowed channel's count and messages their sum.
	top      []channelCount
	all      map[string]int
	messages int
}

type channelCount struct {
	id string
	n  int
}

// otherUnread is the unread view a tick of channel id shows: the counts
// of the channels it may list and what it leaves out; exact says the
// counts were read now, all of them, id's own included.
type otherUnread struct {
	counts  map[string]int
	omitted planner.UnreadOmitted
	exact   bool
}

// unreadCounts returns the unread counts a tick of channel id sees: all
// of them, read now, or (past manyUnread channels) the snapshot's top
// channels with the rest counted, id's own count left out. It refreshes
// the snapshot when it is old.
func (s *Scheduler) unreadCounts(ctx context.Context, id string) (otherUnread, error) {
	snap := &s.unread
	snap.mu.Lock()
	if !snap.at.IsZero() && time.Since(snap.at) < unreadSnapshotAge {
		out := otherUnread{counts: make(map[string]int, len(snap.top))}
		out.omitted = planner.UnreadOmitted{Channels: len(snap.all), Messages: snap.messages}
		if n := snap.all[id]; n > 0 {
			out.omitted.Channels--
			out.omitted.Messages -= n
		}
		for _, c := range snap.top {
			if c.id == id || len(out.counts) == planner.MaxUnreadListed {
				continue
			}
			out.counts[c.id] = c.n
			out.omitted.Channels--
			out.omitted.Messages -= c.n
		}
		snap.mu.Unlock()
		return out, nil
	}
	snap.mu.Unlock()
	counts, err := s.deps.Store.UnreadCounts(ctx)
	if err != nil {
		return otherUnread{}, fmt.Errorf("count unread: %w", err)
	}
	allowed := make(map[string]int, len(counts))
	for cid, n := range counts {
		if n > 0 && s.allowed(cid) {
			allowed[cid] = n
		}
	}
	if len(allowed) > manyUnread {
		top := make([]channelCount, 0, len(allowed))
		total := 0
		for cid, n := range allowed {
			top = append(top, channelCount{cid, n})
			total += n
		}
		sort.Slice(top, func(i, j int) bool {
			if top[i].n != top[j].n {
				return top[i].n > top[j].n
			}
			return top[i].id < top[j].id
		})
		snap.mu.Lock()
		// The map is never written again: ticks read it without a copy.
		snap.at, snap.top, snap.all, snap.messages = time.Now(), top[:unreadSnapshotKeep], allowed, total
		snap.mu.Unlock()
	}
	return otherUnread{counts: allowed, exact: true}, nil
}
