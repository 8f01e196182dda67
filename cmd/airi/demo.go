package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/adapters/console"
	"github.com/airi-go/airi/internal/backoff"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/state"
)

// demoSession is a recorded console chat shipped in the binary; it is a
// copy of testdata/sessions/direct-chat.jsonl, kept in step by its test.
//
//go:embed demo/session.jsonl
var demoSession []byte

// cmdDemo plays the shipped session through the real runtime (a temporary
// SQLite store, the embedded prompts, the planner, the parser and the
// action handlers), the model's answers coming from the recording. It needs
// no configuration and no network.
func (a *app) cmdDemo(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	if code, ok := a.parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(a.stderr, "airi demo: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	sessions, err := replay.Read(bytes.NewReader(demoSession))
	if err != nil {
		fmt.Fprintln(a.stderr, "airi demo: the shipped session is unreadable:", err)
		return exitFailure
	}
	// No configuration: the defaults, the embedded prompts, no log noise.
	cfg, err := parseConfig(map[string]string{})
	if err != nil {
		fmt.Fprintln(a.stderr, "airi demo:", err)
		return exitFailure
	}
	s := sessions[0]
	bot := s.Header.Bot
	if bot == "" {
		bot = "airi"
	}
	out := &demoPrinter{w: a.stdout}
	if isTerminal(a.stdout) {
		// On a terminal the ticks come at a reading pace (half the
		// recorded model latency); piped, the demo runs at full speed.
		out.pause = func(d time.Duration) {
			_ = backoff.Sleep(ctx, min(d/2, 1500*time.Millisecond))
		}
	}
	con := console.New(console.Config{ChannelID: s.Header.Channel.ID, BotName: bot}, strings.NewReader(""), &out.pending, zap.NewNop())
	fmt.Fprintf(a.stdout, "airi demo: a recorded chat with %s, played through the real runtime\n", bot)
	fmt.Fprintln(a.stdout, "(SQLite store, embedded prompts, planner, parser, actions); the model's answers come from the recording.")
	fmt.Fprintln(a.stdout)
	rep, err := replay.Play(ctx, s, runtime.ReplayOpener(cfg.runtime(), zap.NewNop()), replay.Options{
		Forward: con,
		OnEvent: out.event,
		OnTick:  out.tick,
	})
	if err != nil {
		fmt.Fprintln(a.stderr, "airi demo:", err)
		return exitFailure
	}
	fmt.Fprintln(a.stdout)
	fmt.Fprintf(a.stdout, "%d ticks, %d message(s) sent.\n", rep.Replayed, out.sent)
	fmt.Fprintln(a.stdout, "Next: airi chat talks to a real model (set LLM_API_BASE_URL and LLM_MODEL);")
	fmt.Fprintln(a.stdout, "airi prompt render shows what the model is sent; edit the prompts in a PROMPTS_DIR to tune the bot.")
	if rep.Divergence != nil {
		fmt.Fprintf(a.stderr, "airi demo: this runtime no longer acts as recorded: %s\n", rep.Divergence)
	}
	return exitOK
}

// demoPrinter prints the demo: each incoming message, each tick on one
// line, then the messages the tick sent as the console prints them.
type demoPrinter struct {
	w interface {
		Write([]byte) (int, error)
	}
	// pause, when set, waits before a tick is printed.
	pause   func(time.Duration)
	mu      sync.Mutex
	pending bytes.Buffer // console output of the tick in flight
	sent    int
}

func (d *demoPrinter) event(e *replay.Event) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Fprintf(d.w, "> %s: %s\n", e.Sender, strings.ReplaceAll(e.Content, "\n", "\n  "))
}

func (d *demoPrinter) tick(n int, t state.Tick) {
	if d.pause != nil {
		d.pause(time.Duration(t.LatencyMS) * time.Millisecond)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Fprintf(d.w, "tick %d [%s] %s\n", n, t.Trigger, tickLine(t))
	if d.pending.Len() > 0 {
		_, _ = d.w.Write(d.pending.Bytes())
		d.pending.Reset()
	}
	if len(t.Effects) > 0 {
		var effects []actions.Effect
		if json.Unmarshal(t.Effects, &effects) == nil {
			for _, e := range effects {
				if e.Kind == "send" {
					d.sent++
				}
			}
		}
	}
}

// tickLine is a tick in a few words: the action and its result.
func tickLine(t state.Tick) string {
	if t.ModelError != "" {
		return "model call: " + firstLine(t.ModelError)
	}
	if t.ParseError != "" {
		return "unparseable answer -> " + firstLine(t.ParseError)
	}
	name := "?"
	var a struct {
		Action string `json:"action"`
	}
	if json.Unmarshal(t.Action, &a) == nil && a.Action != "" {
		name = a.Action
	}
	return name + " -> " + firstLine(t.Result)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 90 {
		s = string(r[:89]) + "…"
	}
	return s
}
