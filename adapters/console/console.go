// Package console is the terminal adapter: each line read is a message from
// one user in one channel, and each message the bot sends is printed.
package console

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/state"
)

// Name is the adapter's platform name.
const Name = "console"

// Config names the one channel and its user.
type Config struct {
	ChannelID string // default "console"
	User      string // default "you"
	BotName   string // printed before each sent message
	Now       func() time.Time
}

// Adapter reads lines from in and prints sends to out.
type Adapter struct {
	cfg Config
	in  io.Reader
	log *zap.Logger

	mu  sync.Mutex // guards out and n
	out io.Writer
	n   int64
}

// New returns a console adapter.
func New(cfg Config, in io.Reader, out io.Writer, logger *zap.Logger) *Adapter {
	if cfg.ChannelID == "" {
		cfg.ChannelID = "console"
	}
	if cfg.User == "" {
		cfg.User = "you"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Adapter{cfg: cfg, in: in, out: out, log: logger.Named("console")}
}

// Name returns "console".
func (a *Adapter) Name() string { return Name }

// Channel describes the console's one channel.
func (a *Adapter) Channel() state.Channel {
	return state.Channel{ID: a.cfg.ChannelID, NativeID: a.cfg.ChannelID, Platform: Name, Title: "terminal chat with " + a.cfg.User}
}

// Run delivers every non-empty input line as a message until the input
// ends (it then returns nil) or ctx ends.
func (a *Adapter) Run(ctx context.Context, inbox adapters.Inbox) error {
	sc := bufio.NewScanner(a.in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	ch := a.Channel()
	for sc.Scan() {
		if ctx.Err() != nil {
			return nil
		}
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if len(line) > state.MaxContentBytes {
			line = strings.ToValidUTF8(line[:state.MaxContentBytes-16], "") + " [cut]"
		}
		now := a.cfg.Now()
		msg := state.Message{
			ChannelID:  ch.ID,
			PlatformID: a.nextID(now),
			SenderID:   a.cfg.User,
			SenderName: a.cfg.User,
			Content:    line,
			Time:       now.UTC(),
		}
		if err := inbox.Deliver(ctx, ch, msg); err != nil {
			return fmt.Errorf("console: deliver input line: %w", err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("console: read input: %w", err)
	}
	return nil
}

// nextID returns a message id unique within the run, so the same text typed
// twice is two messages.
func (a *Adapter) nextID(now time.Time) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n++
	return fmt.Sprintf("console-%d-%d", now.UnixNano(), a.n)
}

// Send prints "Name: content"; further lines of the message are indented by
// two spaces.
func (a *Adapter) Send(_ context.Context, out state.Outgoing) (string, error) {
	text := strings.ReplaceAll(out.Content, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	var b strings.Builder
	b.WriteString(a.cfg.BotName)
	b.WriteString(": ")
	b.WriteString(lines[0])
	b.WriteByte('\n')
	for _, l := range lines[1:] {
		b.WriteString("  ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	id := a.nextID(a.cfg.Now())
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, err := io.WriteString(a.out, b.String()); err != nil {
		return "", fmt.Errorf("console: print message: %w", err)
	}
	return id, nil
}
