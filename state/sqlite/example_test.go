package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// An adapter stores what it receives before acknowledging it; a channel
// loop reads the unread pool, marks what it showed the model, and finds it
// in the history on the next tick.
func Example() {
	dir, err := os.MkdirTemp("", "airi")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(dir, "data", "airi.db"), zap.NewNop())
	if err != nil {
		panic(err)
	}
	defer s.Close()

	in := state.Message{ChannelID: "console", PlatformID: "1", SenderName: "Ann", Content: "hi", Time: time.Now()}
	_, isNew, _ := s.Ingest(ctx, in)
	_, again, _ := s.Ingest(ctx, in) // redelivered by the platform
	fmt.Println("new:", isNew, "redelivery new:", again)

	unread, _ := s.Unread(ctx, "console", 20)
	_ = s.MarkRead(ctx, []int64{unread[0].ID})
	history, total, _ := s.History(ctx, "console", 20)
	fmt.Println("unread:", len(unread), "history:", history[0].Content, total)
	// Output:
	// new: true redelivery new: false
	// unread: 1 history: hi 1
}
