// Package console is the terminal adapter: each line read is a message from
// one user in one channel, and each message the bot sends is printed.
package console

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/internal/term"
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

// cutMarker ends an input line that was longer than state.MaxContentBytes.
const cutMarker = " […message cut]"

// Run delivers every non-empty input line as a message until the input
// ends (it then returns nil) or ctx ends. A line of any length is read; one
// longer than state.MaxContentBytes is cut, with a marker.
func (a *Adapter) Run(ctx context.Context, inbox adapters.Inbox) error {
	r := bufio.NewReader(a.in)
	ch := a.Channel()
	for {
		line, err := readLine(r, state.MaxContentBytes)
		if ctx.Err() != nil {
			return nil
		}
		if strings.TrimSpace(line) != "" {
			now := a.cfg.Now()
			msg := state.Message{
				ChannelID:  ch.ID,
				PlatformID: a.nextID(now),
				SenderID:   Name + ":" + a.cfg.User,
				SenderName: a.cfg.User,
				Content:    line,
				Time:       now.UTC(),
			}
			if err := inbox.Deliver(ctx, ch, msg); err != nil {
				return fmt.Errorf("console: deliver input line: %w", err)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("console: read input: %w", err)
		}
	}
}

// readLine reads one line without its line ending, holding at most limit
// bytes of it in memory: a longer line is read to its end and cut to limit
// bytes (at a character boundary), with a marker. At the end of the input
// it returns the last, unterminated line with io.EOF.
func readLine(r *bufio.Reader, limit int) (string, error) {
	// Two bytes beyond limit leave room for a "\r\n" ending.
	keep := limit + 2
	var buf []byte
	over := false
	for {
		chunk, err := r.ReadSlice('\n')
		room := keep - len(buf)
		if len(chunk) > room {
			chunk, over = chunk[:room], true
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if !over {
			buf = bytes.TrimSuffix(buf, []byte("\n"))
			buf = bytes.TrimSuffix(buf, []byte("\r"))
		}
		if len(buf) > limit {
			cut := limit - len(cutMarker)
			for cut > 0 && !utf8.RuneStart(buf[cut]) {
				cut--
			}
			buf = append(buf[:cut], cutMarker...)
		}
		return string(buf), err
	}
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
// two spaces. Terminal control characters and escape sequences are removed,
// so a message cannot move the cursor, recolour or retitle the terminal, or
// overwrite what was printed before; a lone carriage return starts a new
// line.
func (a *Adapter) Send(_ context.Context, out state.Outgoing) (string, error) {
	lines := strings.Split(term.Printable(out.Content), "\n")
	var b strings.Builder
	b.WriteString(term.Printable(a.cfg.BotName))
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

// React prints "Name reacted 👍 to <message id>" on one line: the
// console shows a reaction the way it shows a message.
func (a *Adapter) React(_ context.Context, r state.Reacting) error {
	line := term.Printable(a.cfg.BotName) + " reacted " + strings.ReplaceAll(term.Printable(r.Emoji), "\n", " ") +
		" to " + strings.ReplaceAll(term.Printable(r.MessageID), "\n", " ") + "\n"
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, err := io.WriteString(a.out, line); err != nil {
		return fmt.Errorf("console: print reaction: %w", err)
	}
	return nil
}
