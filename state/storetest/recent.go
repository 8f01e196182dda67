package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/airi-go/airi/state"
)

// testRecentOwn checks RecentOwn against what picking the bot's own
// messages out of History finds, newest first, on channels whose own
// messages are interleaved with others', pushed out of the scanned window,
// followed by unread messages, or dated out of order.
func testRecentOwn(t *testing.T, s state.Store) {
	r := s
	ctx := context.Background()
	// A channel's messages, oldest first: o is the bot's own, i an
	// incoming message marked read, u one left unread; a number repeats
	// the letter after it that many times, so "3o2i" is "oooii". An own
	// message's time goes back an hour at every x, so ids and times
	// disagree.
	tests := []struct {
		name        string
		msgs        string
		scan, limit int
		want        int
	}{
		{"no messages", "", 100, 5, 0},
		{"only others", "9i", 100, 5, 0},
		{"fewer own than the limit", "oi2o9i", 100, 5, 3},
		{"interleaved", "oiioiioiioiioiioiioii", 100, 5, 5},
		{"one at most", "oiioiioii", 100, 1, 1},
		{"beyond the scan", "3o98i", 100, 5, 2},
		{"all beyond the scan", "3o100i", 100, 5, 0},
		{"unread take no place in the scan", "5o96i200u", 100, 5, 4},
		{"unread after own", "7o200u", 100, 5, 5},
		{"small scan", "oooiooi", 3, 5, 2},
		{"times out of order", "oxoxoioxoo", 100, 5, 5},
		{"no bounds", "9o2i", 0, 0, 9},
	}
	for n, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := fmt.Sprint("recent-", n)
			// Another channel's own messages never show.
			ingest(t, s, state.Message{ChannelID: ch + "-other", PlatformID: "x", Self: true, Content: "elsewhere", Time: at(0)})
			var read []int64
			sec, back := 0, 0
			count := 0
			for _, c := range tt.msgs {
				if c >= '0' && c <= '9' {
					count = count*10 + int(c-'0')
					continue
				}
				count = max(count, 1)
				for range count {
					sec++
					m := msg(ch, fmt.Sprint("p", sec), sec)
					switch c {
					case 'o':
						m.Self = true
						m.Content = fmt.Sprintf("own %d  with   spaces", sec)
						m.Time = at(sec - back)
					case 'x':
						back += 3600
						continue
					}
					got := ingest(t, s, m)
					if c == 'i' {
						read = append(read, got.ID)
					}
				}
				count = 0
			}
			if err := s.MarkRead(ctx, read); err != nil {
				t.Fatalf("MarkRead: %v", err)
			}
			hist, _, err := s.History(ctx, ch, tt.scan)
			if err != nil {
				t.Fatalf("History: %v", err)
			}
			want := []state.Message{}
			for i := len(hist) - 1; i >= 0 && (tt.limit <= 0 || len(want) < tt.limit); i-- {
				if m := hist[i]; m.Self {
					want = append(want, state.Message{ID: m.ID, ChannelID: m.ChannelID, Self: true, Read: m.Read, Content: m.Content, Time: m.Time})
				}
			}
			if len(want) != tt.want {
				t.Fatalf("History shows %d own messages, the case expects %d", len(want), tt.want)
			}
			got, err := r.RecentOwn(ctx, ch, tt.scan, tt.limit)
			if err != nil {
				t.Fatalf("RecentOwn: %v", err)
			}
			if got == nil {
				got = []state.Message{}
			}
			equal(t, "RecentOwn (own messages of History, newest first)", normMsgs(got), normMsgs(want))
		})
	}
	if got, err := r.RecentOwn(ctx, "none", 100, 5); err != nil || len(got) != 0 {
		t.Errorf("RecentOwn(unknown) = %v, %v", got, err)
	}
}
