package sqlite

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkUnreadManyChannels asks for the unread messages of a different
// channel each time, with the limits a wake uses in turn (one, all, a
// page), as wakes across many chats do.
func BenchmarkUnreadManyChannels(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	const channels = 200
	for c := range channels {
		if _, _, err := s.Ingest(ctx, benchMsg(fmt.Sprint("c", c), c)); err != nil {
			b.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := s.Unread(ctx, fmt.Sprint("c", i%channels), []int{1, 0, 20}[i%3]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
