package console

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/term"

	"github.com/airi-go/airi/state"
)

// terminalStream is a stream that says whether it is a terminal though
// it is not an *os.File, such as a wrapper around a pseudo-terminal.
type terminalStream interface{ IsTerminal() bool }

// IsTerminal reports whether a reader or writer is a terminal.
func IsTerminal(v any) bool {
	if t, ok := v.(terminalStream); ok {
		return t.IsTerminal()
	}
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Screen is the adapter's terminal mode: what is drawn around the
// conversation, on stderr: the input prompt, a line saying the bot is
// thinking, the model's outage and recovery, and the log lines. Every one
// of them starts by clearing the line the prompt or the indicator is on,
// so that nothing is glued to a leftover "is thinking…", and the prompt
// comes back after each.
type Screen struct {
	w      io.Writer
	prompt string

	mu       sync.Mutex
	bot      func() string
	thinking bool
	outage   bool
}

// NewScreen draws on w, with the prompt of user and the name bot gives.
func NewScreen(w io.Writer, user string, bot func() string) *Screen {
	return &Screen{w: w, prompt: user + "> ", bot: bot}
}

// SetBot changes where the bot's name in the indicator comes from.
func (c *Screen) SetBot(bot func() string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bot = bot
}

// clearLocked empties the line the cursor is on.
func (c *Screen) clearLocked() {
	fmt.Fprint(c.w, "\r\033[K")
	c.thinking = false
}

// ShowPrompt draws the input prompt on a clean line.
func (c *Screen) ShowPrompt() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLocked()
	fmt.Fprint(c.w, c.prompt)
}

// typing shows the indicator in place of the prompt.
func (c *Screen) typing() {
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
func (c *Screen) line(text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLocked()
	fmt.Fprintf(c.w, "%s\n%s", text, c.prompt)
}

// Tick follows the recorded ticks: a failed model call says once that
// the model is not answering, the first call that succeeds again says it
// is back, and a tick that sent nothing takes the indicator away.
func (c *Screen) Tick(t state.Tick) {
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
		c.ShowPrompt()
	}
}

// Write writes log lines: on a clean line, with the prompt after them.
func (c *Screen) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLocked()
	n, err := c.w.Write(p)
	fmt.Fprint(c.w, c.prompt)
	return n, err
}

// Close leaves the terminal on a clean line.
func (c *Screen) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLocked()
}

// modelErrorLine is the first line of a recorded model error.
func modelErrorLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// Reader wraps r so that the prompt is drawn again after each line read:
// the terminal has moved to a new line when the user pressed Enter.
func (c *Screen) Reader(r io.Reader) io.Reader { return &promptReader{r: r, screen: c} }

type promptReader struct {
	r      io.Reader
	screen *Screen
}

func (p *promptReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if bytes.IndexByte(b[:n], '\n') >= 0 {
		p.screen.ShowPrompt()
	}
	return n, err
}

// ScreenAdapter is the adapter on a terminal: the screen shows the
// typing indicator, and each message is printed on a clean line with the
// prompt after it.
type ScreenAdapter struct {
	*Adapter
	screen *Screen
}

// OnScreen returns the adapter a drawing on the screen c.
func (c *Screen) OnScreen(a *Adapter) *ScreenAdapter { return &ScreenAdapter{Adapter: a, screen: c} }

// Typing shows the indicator.
func (t *ScreenAdapter) Typing(context.Context, string) error {
	t.screen.typing()
	return nil
}

// Send clears the line, prints the message, then the prompt.
func (t *ScreenAdapter) Send(ctx context.Context, out state.Outgoing) (string, error) {
	t.screen.mu.Lock()
	t.screen.clearLocked()
	id, err := t.Adapter.Send(ctx, out)
	fmt.Fprint(t.screen.w, t.screen.prompt)
	t.screen.mu.Unlock()
	return id, err
}

// React clears the line, prints the reaction, then the prompt.
func (t *ScreenAdapter) React(ctx context.Context, r state.Reacting) error {
	t.screen.mu.Lock()
	t.screen.clearLocked()
	err := t.Adapter.React(ctx, r)
	fmt.Fprint(t.screen.w, t.screen.prompt)
	t.screen.mu.Unlock()
	return err
}
