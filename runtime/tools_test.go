package runtime

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/adapters/console"
	"github.com/airi-go/airi/planner/openai"
	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
	"github.com/airi-go/airi/tools"
)

// everything returns the path of server-everything's dist/index.js, or
// skips the test.
func everything(t *testing.T) string {
	t.Helper()
	p := os.Getenv("AIRI_TEST_MCP_EVERYTHING")
	if p == "" {
		t.Skip("AIRI_TEST_MCP_EVERYTHING is unset: install @modelcontextprotocol/server-everything and point it at dist/index.js")
	}
	return p
}

// toolBot is the runtime with server-everything as the stdio server
// "everything", answering with the fake OpenAI model. Each request the
// model receives is handed to the test on reqs, which answers on replies.
type toolBot struct {
	rt      *Bot
	reqs    chan openaitest.Request
	replies chan openaitest.Reply
	pidFile string

	mu       sync.Mutex
	outcomes []string // "tool outcome" of each call, as OnToolCall saw them
}

func (tb *toolBot) calls() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return append([]string(nil), tb.outcomes...)
}

// newToolBot starts the bot; backoff, when set, is the wait before the
// server is started again.
func newToolBot(t *testing.T, policy tools.Policy, timeout, backoff time.Duration) *toolBot {
	t.Helper()
	index := everything(t)
	ctx := t.Context()
	log := zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel))
	tb := &toolBot{reqs: make(chan openaitest.Request), replies: make(chan openaitest.Reply), pidFile: filepath.Join(t.TempDir(), "pid")}
	h := openaitest.NewHandler(func(ctx context.Context, req openaitest.Request) openaitest.Reply {
		select {
		case tb.reqs <- req:
		case <-ctx.Done():
			return openaitest.Hang()
		}
		select {
		case r := <-tb.replies:
			return r
		case <-ctx.Done():
			return openaitest.Hang()
		}
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Cleanup(h.Close)
	model, err := openai.New(openai.Config{BaseURL: srv.URL, Model: "m", MaxAttempts: 1}, log)
	if err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "airi.db"), log)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	con := console.New(console.Config{}, strings.NewReader(""), &out, log)
	// The shell writes its pid, then becomes the server, so the test can
	// kill the very process the runtime supervises.
	cmd := []string{"sh", "-c", `echo $$ > "$0"; exec node "$1" stdio`, tb.pidFile, index}
	// Every group message wakes the bot, so the group's tests need no
	// mention.
	cfg := Config{MaxIterations: 5, Attention: attention.Policy{Default: attention.Settings{Mode: attention.ModeAll}}, Tools: tools.Config{
		Servers: []tools.Server{{Name: "everything", Command: cmd}},
		Policy:  policy, Timeout: timeout,
	}}
	onCall := func(tool, outcome string, _ time.Duration) {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		tb.outcomes = append(tb.outcomes, tool+" "+outcome)
	}
	tb.rt, err = New(cfg, Deps{Store: store, Model: model, Logger: log, Adapters: []Adapter{{Sender: con}}, OnToolCall: onCall})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := tb.rt.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	if backoff > 0 {
		tb.rt.Tools().MinBackoff = backoff
	}
	if err := tb.rt.Start(ctx); err != nil {
		t.Fatal(err)
	}
	tb.waitFor(t, func() bool { return tb.rt.Tools().Connected("everything") })
	return tb
}

// waitFor waits for a change of the tools until cond holds.
func (tb *toolBot) waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for {
		changed := tb.rt.Tools().Changed()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-t.Context().Done():
			t.Fatal("gave up waiting for the tool servers")
		}
	}
}

// say delivers a message from sender into channel ch.
func (tb *toolBot) say(t *testing.T, ch state.Channel, sender, text string) {
	t.Helper()
	msg := state.Message{ChannelID: ch.ID, PlatformID: strconv.FormatInt(time.Now().UnixNano(), 10),
		SenderID: sender, SenderName: "Ann", Content: text, Time: time.Now().UTC()}
	if err := tb.rt.Inbox(console.Name).Deliver(t.Context(), ch, msg); err != nil {
		t.Fatal(err)
	}
}

// next returns the model's next request.
func (tb *toolBot) next(t *testing.T) openaitest.Request {
	t.Helper()
	select {
	case r := <-tb.reqs:
		return r
	case <-t.Context().Done():
		t.Fatal("no model request came")
		return openaitest.Request{}
	}
}

func (tb *toolBot) answer(t *testing.T, text string) {
	t.Helper()
	select {
	case tb.replies <- openaitest.Text(text):
	case <-t.Context().Done():
		t.Fatal("the model's answer was not taken")
	}
}

func system(r openaitest.Request) string { return r.Messages[0].Content }

var direct = state.Channel{ID: "dm", Platform: console.Name, Title: "Ann"}

func TestToolsInADirectChat(t *testing.T) {
	tb := newToolBot(t, tools.Policy{}, 2*time.Second, 0)
	tb.say(t, direct, "console:ann", "echo something for me")

	r := tb.next(t)
	if !strings.Contains(system(r), "- everything.echo {message}") {
		t.Fatalf("the catalog lacks the echo tool:\n%s", system(r))
	}
	tb.answer(t, `{"action":"everything.echo","message":"m-123abc"}`)

	r = tb.next(t)
	if got := r.LastUser(); !strings.Contains(got, "m-123abc") || !strings.Contains(got, "tool output of everything.echo") {
		t.Fatalf("the next request does not show the echo as tool output:\n%s", got)
	}
	// A call the server does not answer in time is a result too.
	tb.answer(t, `{"action":"everything.trigger-long-running-operation","duration":600,"steps":1}`)
	r = tb.next(t)
	if got := r.LastUser(); !strings.Contains(got, "tool call timed out: everything.trigger-long-running-operation gave no answer within 2s") {
		t.Fatalf("the next request does not report the timeout:\n%s", got)
	}
	tb.answer(t, `{"action":"continue"}`)

	// The chat keeps working.
	tb.say(t, direct, "console:ann", "thanks")
	r = tb.next(t)
	if !strings.Contains(r.LastUser(), "thanks") {
		t.Fatalf("the chat did not go on:\n%s", r.LastUser())
	}
	tb.answer(t, `{"action":"continue"}`)
	want := "[everything.echo ok everything.trigger-long-running-operation timeout]"
	if got := fmt.Sprint(tb.calls()); got != want {
		t.Errorf("calls seen = %s, want %s", got, want)
	}
}

func TestToolsInAGroup(t *testing.T) {
	group := state.Channel{ID: "g1", Platform: console.Name, Title: "Harbour", Group: true}
	t.Run("denied", func(t *testing.T) {
		tb := newToolBot(t, tools.Policy{Rule: tools.Rule{Groups: "deny"}}, 5*time.Second, 0)
		tb.say(t, group, "telegram:501", "echo for me")
		r := tb.next(t)
		if strings.Contains(system(r), "everything.") {
			t.Fatalf("a denied group's catalog shows tools:\n%s", system(r))
		}
		tb.answer(t, `{"action":"everything.echo","message":"m-123abc"}`)
		r = tb.next(t)
		got := r.LastUser()
		if !strings.Contains(got, "everything.echo refused: tools are denied in groups, and sender telegram:501 is not in allow_users") {
			t.Fatalf("the refusal is not in the next request:\n%s", got)
		}
		if strings.Contains(got, "tool output") {
			t.Fatalf("a refused tool ran:\n%s", got)
		}
		if got := fmt.Sprint(tb.calls()); got != "[everything.echo refused]" {
			t.Errorf("calls seen = %s", got)
		}
		tb.answer(t, `{"action":"continue"}`)
	})
	t.Run("allowed user", func(t *testing.T) {
		tb := newToolBot(t, tools.Policy{Rule: tools.Rule{Groups: "deny", AllowUsers: []string{"telegram:501"}}}, 5*time.Second, 0)
		tb.say(t, group, "telegram:501", "echo for me")
		r := tb.next(t)
		if !strings.Contains(system(r), "- everything.echo {message}") {
			t.Fatalf("an allowed sender's catalog lacks the tool:\n%s", system(r))
		}
		tb.answer(t, `{"action":"everything.echo","message":"m-123abc"}`)
		r = tb.next(t)
		if got := r.LastUser(); !strings.Contains(got, "m-123abc") || !strings.Contains(got, "tool output of everything.echo") {
			t.Fatalf("the allowed call did not run:\n%s", got)
		}
		tb.answer(t, `{"action":"continue"}`)
	})
}

func TestToolServerRestarts(t *testing.T) {
	// A long backoff keeps the server down while the next call runs.
	tb := newToolBot(t, tools.Policy{}, 5*time.Second, 2*time.Second)
	m := tb.rt.Tools()
	tb.say(t, direct, "console:ann", "echo twice")
	r := tb.next(t)
	first := system(r)

	raw, err := os.ReadFile(tb.pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	tb.waitFor(t, func() bool { return !m.Connected("everything") })
	tb.answer(t, `{"action":"everything.echo","message":"m-1"}`)
	r = tb.next(t)
	if got := r.LastUser(); !strings.Contains(got, "everything.echo failed") {
		t.Fatalf("the call to a dead server is not a failed result:\n%s", got)
	}
	if system(r) != first {
		t.Error("the system message changed while the server restarted")
	}
	tb.waitFor(t, func() bool { return m.Starts("everything") == 2 && m.Connected("everything") })
	tb.answer(t, `{"action":"everything.echo","message":"m-2"}`)
	r = tb.next(t)
	if got := r.LastUser(); !strings.Contains(got, "m-2") || !strings.Contains(got, "tool output of everything.echo") {
		t.Fatalf("the call after the restart did not run:\n%s", got)
	}
	tb.answer(t, `{"action":"continue"}`)
}
