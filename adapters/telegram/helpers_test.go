package telegram

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/state"
)

// memInbox is a store in miniature: it keeps messages deduplicated by
// channel and platform id, as the runtime's store does.
type memInbox struct {
	mu       sync.Mutex
	changed  chan struct{}
	seen     map[string]bool
	msgs     []state.Message
	channels map[string]state.Channel
	dups     int
	// fail, when set, is asked before storing; a non-nil error refuses
	// the delivery.
	fail func(ctx context.Context, msg state.Message) error
}

func newInbox() *memInbox {
	return &memInbox{changed: make(chan struct{}), seen: map[string]bool{}, channels: map[string]state.Channel{}}
}

func (in *memInbox) Deliver(ctx context.Context, ch state.Channel, msg state.Message) error {
	if in.fail != nil {
		if err := in.fail(ctx, msg); err != nil {
			return err
		}
	}
	if err := ch.Validate(); err != nil {
		return err
	}
	if err := msg.Validate(); err != nil {
		return err
	}
	if msg.ChannelID != ch.ID {
		return fmt.Errorf("message of channel %q delivered with channel %q", msg.ChannelID, ch.ID)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	key := msg.ChannelID + "/" + msg.PlatformID
	in.channels[ch.ID] = ch
	if in.seen[key] && !msg.Edited && !msg.Deleted {
		in.dups++
		return nil
	}
	in.seen[key] = true
	in.msgs = append(in.msgs, msg)
	close(in.changed)
	in.changed = make(chan struct{})
	return nil
}

// wait blocks until n messages are stored.
func (in *memInbox) wait(t *testing.T, n int) []state.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		in.mu.Lock()
		if len(in.msgs) >= n {
			out := append([]state.Message(nil), in.msgs...)
			in.mu.Unlock()
			return out
		}
		ch := in.changed
		in.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("waiting for %d delivered messages: %d arrived", n, len(in.messages()))
		}
	}
}

func (in *memInbox) messages() []state.Message {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]state.Message(nil), in.msgs...)
}

func (in *memInbox) channel(id string) state.Channel {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.channels[id]
}

type memCursors struct {
	mu sync.Mutex
	m  map[string]string
}

func (c *memCursors) Cursor(_ context.Context, key string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key], nil
}

func (c *memCursors) SetCursor(_ context.Context, key, value string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]string{}
	}
	c.m[key] = value
	return nil
}

var (
	ann = telegramtest.User{ID: 501, FirstName: "Ann", LastName: "Lee", Username: "ann"}
	bob = telegramtest.User{ID: 502, FirstName: "Bob", Username: "bobby"}
	sg  = telegramtest.Chat{ID: -1001234567890, Type: telegramtest.Supergroup, Title: "Night Owls"}
	grp = telegramtest.Chat{ID: -4242, Type: telegramtest.Group, Title: "Small Group"}
)

func startServer(t *testing.T) *telegramtest.Server {
	t.Helper()
	srv := telegramtest.Start(telegramtest.Options{})
	t.Cleanup(srv.Close)
	return srv
}

func newAdapter(t *testing.T, srv *telegramtest.Server, cursors adapters.Cursors) *Adapter {
	t.Helper()
	a, err := New(Config{Token: srv.Token(), APIBaseURL: srv.URL(), PollTimeout: time.Second, HTTPTimeout: 5 * time.Second},
		cursors, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// run starts a.Run and returns a stop function that cancels it and
// checks that it returned nil.
func run(t *testing.T, a *Adapter, inbox adapters.Inbox) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, inbox) }()
	select {
	case <-a.Ready():
	case err := <-done:
		cancel()
		t.Fatalf("Run ended before ready: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("adapter not ready")
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run returned %v after cancellation, want nil", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// connected returns an adapter of srv that has called getMe, for tests
// that drive Poll step by step, and the test's context.
func connected(t *testing.T, srv *telegramtest.Server) (*Adapter, context.Context) {
	t.Helper()
	a := newAdapter(t, srv, &memCursors{})
	t.Cleanup(a.ownHTTP.CloseIdleConnections)
	ctx := ctxT(t)
	if err := a.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	return a, ctx
}
