package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"golang.org/x/term"

	"github.com/airi-go/airi/adapters/console"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/state"
)

// chatBanner is the one line `airi chat` prints on a terminal.
func chatBanner(cfg config, bot string) string {
	db := "SQLite " + cfg.DBPath
	if cfg.DatabaseURL != "" {
		db = "PostgreSQL (DATABASE_URL)"
	}
	return fmt.Sprintf("Chatting with %s · model %s at %s · %s · Ctrl-D or Ctrl-C to quit", bot, cfg.LLMModel, cfg.LLMBaseURL, db)
}

// terminalStream is a stream that says whether it is a terminal though
// it is not an *os.File, such as a wrapper around a pseudo-terminal.
type terminalStream interface{ IsTerminal() bool }

// streamIsTerminal reports whether a reader or writer is a terminal.
func streamIsTerminal(v any) bool {
	if t, ok := v.(terminalStream); ok {
		return t.IsTerminal()
	}
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// chatScreen is what `airi chat` draws on a terminal around the
// conversation, on stderr: the input prompt, a line saying the bot is
// thinking, the model's outage and recovery, and the log lines. Every one
// of them starts by clearing the line the prompt or the indicator is on,
// so that nothing is glued to a leftover "is thinking…", and the prompt
// comes back after each.
type chatScreen struct {
	w      io.Writer
	prompt string
	bot    func() string

	mu       sync.Mutex
	thinking bool
	outage   bool
}

func newChatScreen(w io.Writer, user string, bot func() string) *chatScreen {
	return &chatScreen{w: w, prompt: user + "> ", bot: bot}
}

// clearLocked empties the line the cursor is on.
func (c *chatScreen) clearLocked() {
	fmt.Fprint(c.w, "\r\033[K")
	c.thinking = false
}

// showPrompt draws the input prompt on a clean line.
func (c *chatScreen) showPrompt() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLocked()
	fmt.Fprint(c.w, c.prompt)
}

// typing shows the indicator in place of the prompt.
func (c *chatScreen) typing() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.thinking {
		c.clearLocked()
		fmt.Fprintf(c.w, "\033[2m%s is thinking…\033[0m", c.bot())
		c.thinking = true
	}
}

// line prints one line of the runtime's own on a clean line, then the
// prompt again.
func (c *chatScreen) line(text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLocked()
	fmt.Fprintf(c.w, "%s\n%s", text, c.prompt)
}

// tick follows the recorded ticks: a failed model call says once that
// the model is not answering, the first call that succeeds again says it
// is back, and a tick that sent nothing takes the indicator away.
func (c *chatScreen) tick(t state.Tick) {
	c.mu.Lock()
	failed, was := t.ModelError != "", c.outage
	c.outage = failed
	c.mu.Unlock()
	switch {
	case failed && !was:
		c.line(fmt.Sprintf("airi: the model is not answering (%s); your messages wait and are answered once it is back", modelErrorLine(t.ModelError)))
	case !failed && was:
		c.line("airi: the model answers again")
	default:
		c.showPrompt()
	}
}

// Write writes log lines: on a clean line, with the prompt after them.
func (c *chatScreen) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLocked()
	n, err := c.w.Write(p)
	fmt.Fprint(c.w, c.prompt)
	return n, err
}

// close leaves the terminal on a clean line.
func (c *chatScreen) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLocked()
}

// modelErrorLine is the first line of a recorded model error.
func modelErrorLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// promptReader draws the prompt again after each line it reads: the
// terminal has moved to a new line when the user pressed Enter.
type promptReader struct {
	r      io.Reader
	screen *chatScreen
}

func (p *promptReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if bytes.IndexByte(b[:n], '\n') >= 0 {
		p.screen.showPrompt()
	}
	return n, err
}

// screenConsole is the console adapter on a terminal: the screen shows
// the typing indicator, and each message is printed on a clean line with
// the prompt after it.
type screenConsole struct {
	*console.Adapter
	screen *chatScreen
}

// Typing shows the indicator.
func (t *screenConsole) Typing(context.Context, string) error {
	t.screen.typing()
	return nil
}

// Send clears the line, prints the message, then the prompt.
func (t *screenConsole) Send(ctx context.Context, out state.Outgoing) (string, error) {
	t.screen.mu.Lock()
	t.screen.clearLocked()
	id, err := t.Adapter.Send(ctx, out)
	fmt.Fprint(t.screen.w, t.screen.prompt)
	t.screen.mu.Unlock()
	return id, err
}

// React clears the line, prints the reaction, then the prompt.
func (t *screenConsole) React(ctx context.Context, r state.Reacting) error {
	t.screen.mu.Lock()
	t.screen.clearLocked()
	err := t.Adapter.React(ctx, r)
	fmt.Fprint(t.screen.w, t.screen.prompt)
	t.screen.mu.Unlock()
	return err
}

// chatLogger is the logger of `airi chat` on a terminal: into file at
// LOG_LEVEL when one is given, otherwise on the screen at warn and above,
// so that info lines do not mix into the conversation. It returns the
// line saying where the logs go.
func chatLogger(cfg config, file string, screen *chatScreen) (*zap.Logger, func(), string, error) {
	if file != "" {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, "", fmt.Errorf("--log: %w", err)
		}
		log, err := newLogger(f, cfg.LogLevel, cfg.LogFormat)
		if err != nil {
			_ = f.Close()
			return nil, nil, "", err
		}
		return log, func() { _ = log.Sync(); _ = f.Close() }, fmt.Sprintf("Logs (%s and above) go to %s", cfg.LogLevel, file), nil
	}
	level := cfg.LogLevel
	if l, err := zapcore.ParseLevel(level); err == nil && l < zapcore.WarnLevel {
		level = "warn"
	}
	format := cfg.LogFormat
	if format == "" {
		format = "console"
	}
	log, err := newLogger(screen, level, format)
	if err != nil {
		return nil, nil, "", err
	}
	return log, func() { _ = log.Sync() }, fmt.Sprintf("Logs: %s and above here; --log FILE writes every line at LOG_LEVEL=%s to FILE", level, cfg.LogLevel), nil
}

// gaveUp reports, once every model call has failed for at least d, the
// line `airi chat` exits with.
func gaveUp(rt *runtime.Bot, d time.Duration, now time.Time) (string, bool) {
	since, last := rt.Scheduler().ModelFailing()
	if since.IsZero() || now.Sub(since) < d {
		return "", false
	}
	return fmt.Sprintf("gave up after the model failed for %s (LLM_GIVE_UP=%s): %s", now.Sub(since).Round(time.Second), d, last), true
}

// unreadReport says how many messages of the channel stay unread.
func unreadReport(ctx context.Context, rt *runtime.Bot, channel string) string {
	counts, err := rt.Store().UnreadCounts(ctx)
	if err != nil || counts[channel] == 0 {
		return ""
	}
	return fmt.Sprintf("; %d message(s) stay unread and are answered by the next airi chat", counts[channel])
}
