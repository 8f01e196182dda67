package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/airi-go/airi/adapters/console"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/state"
)

// readerIsTerminal reports whether r is a terminal.
func readerIsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// chatBanner is the one line `airi chat` prints on a terminal.
func chatBanner(cfg config, bot string) string {
	db := "SQLite " + cfg.DBPath
	if cfg.DatabaseURL != "" {
		db = "PostgreSQL (DATABASE_URL)"
	}
	return fmt.Sprintf("Chatting with %s · model %s at %s · %s · Ctrl-D or Ctrl-C to quit", bot, cfg.LLMModel, cfg.LLMBaseURL, db)
}

// typingConsole is the console adapter with a typing indicator on the
// terminal: a line saying the bot is thinking, cleared when it answers.
type typingConsole struct {
	*console.Adapter
	w   io.Writer
	bot string

	mu      sync.Mutex
	showing bool
}

// Typing shows the indicator.
func (t *typingConsole) Typing(context.Context, string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.showing {
		fmt.Fprintf(t.w, "\r\033[2m%s is thinking…\033[0m", t.bot)
		t.showing = true
	}
	return nil
}

// clear removes the indicator.
func (t *typingConsole) clear() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.showing {
		fmt.Fprint(t.w, "\r\033[K")
		t.showing = false
	}
}

// Send clears the indicator, then prints the message.
func (t *typingConsole) Send(ctx context.Context, out state.Outgoing) (string, error) {
	t.clear()
	return t.Adapter.Send(ctx, out)
}

// React clears the indicator, then prints the reaction.
func (t *typingConsole) React(ctx context.Context, r state.Reacting) error {
	t.clear()
	return t.Adapter.React(ctx, r)
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
