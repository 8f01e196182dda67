package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/schollz/progressbar/v3"
	"go.uber.org/zap"
	"golang.org/x/term"

	"github.com/airi-go/airi/internal/tokens"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/scheduler/replay"
)

// progressMin is the number of files from which replay shows a progress bar.
const progressMin = 4

// cmdReplay plays recorded sessions through the real runtime and reports
// the first tick of each whose action or effects differ from the recording.
func (a *app) cmdReplay(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	var cf commonFlags
	cf.register(fs)
	prompts := fs.Bool("prompts", false, "also compare the rendered requests and print a unified diff of what changed")
	strict := fs.Bool("strict", false, "with --prompts, a changed request is a failure too")
	cost := fs.Bool("cost", false, "with --prompts, also count the tokens each tick's request takes now against the recording (o200k), name where each changed request first differs, and summarize")
	update := fs.Bool("update", false, "accept prompt changes: rewrite each file whose actions and effects match with the requests rendered now")
	fs.Usage = func() {
		fmt.Fprintln(a.stderr, "usage: airi replay [--prompts [--cost]] [--strict | --update] [--config FILE] FILE... (- reads standard input)")
		fs.PrintDefaults()
	}
	if code, ok := a.parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	if *strict && *update {
		fmt.Fprintln(a.stderr, "airi replay: --strict and --update exclude each other")
		return exitUsage
	}
	if *strict || *update || *cost {
		*prompts = true
	}
	if *update {
		for _, f := range fs.Args() {
			if f == "-" {
				fmt.Fprintln(a.stderr, "airi replay: --update rewrites files; it cannot update standard input")
				return exitUsage
			}
		}
	}
	cfg, log, code := a.setup("replay", cf)
	if code != exitOK {
		return code
	}
	defer func() { _ = log.Sync() }()

	files := fs.Args()
	var bar *progressbar.ProgressBar
	if len(files) >= progressMin && isTerminal(a.stderr) {
		bar = progressbar.NewOptions(len(files), progressbar.OptionSetWriter(a.stderr),
			progressbar.OptionSetDescription("replaying"), progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
	}
	opener := runtime.ReplayOpener(cfg.runtime(), runtimeLogger(cfg, log))
	var counter replay.TokenCounter
	if *cost {
		counter = tokens.New()
	}
	failed, changed := 0, 0
	for _, file := range files {
		if ctx.Err() != nil {
			return exitFailure
		}
		f, c := a.replayFile(ctx, file, opener, *prompts, *update, counter)
		failed += f
		changed += c
		if bar != nil {
			_ = bar.Add(1)
		}
	}
	if bar != nil {
		_ = bar.Finish()
	}
	switch {
	case failed > 0:
		fmt.Fprintf(a.stdout, "%d session(s) diverged from their recording or could not be replayed\n", failed)
		return exitFailure
	case *strict && changed > 0:
		fmt.Fprintf(a.stdout, "%d session(s) rendered different prompts (--strict)\n", changed)
		return exitFailure
	}
	return exitOK
}

// replayFile replays every session of one file and prints what it found;
// it returns how many sessions diverged and how many had prompt changes.
// With update, a file none of whose sessions diverged is rewritten with
// the requests rendered now. With a counter, the cost of the prompt change
// is printed for each session.
func (a *app) replayFile(ctx context.Context, file string, open replay.Opener, prompts, update bool, counter replay.TokenCounter) (failed, changed int) {
	var (
		sessions []*replay.Session
		err      error
	)
	if file == "-" {
		sessions, err = replay.Read(a.stdin)
		file = "stdin"
	} else {
		sessions, err = replay.ReadFile(file)
	}
	if err != nil {
		fmt.Fprintf(a.stdout, "FAIL %s: %v\n", file, err)
		return 1, 0
	}
	refreshed := make([]*replay.Session, len(sessions))
	for i, s := range sessions {
		name := file
		if len(sessions) > 1 {
			name = fmt.Sprintf("%s#%d (channel %s)", file, i+1, s.Header.Channel.ID)
		}
		rep, err := replay.Play(ctx, s, open, replay.Options{Prompts: prompts})
		if err != nil {
			fmt.Fprintf(a.stdout, "FAIL %s: replay: %v\n", name, err)
			failed++
			continue
		}
		if rep.Divergence != nil {
			failed++
			fmt.Fprintf(a.stdout, "FAIL %s: %s\n", name, indentRest(rep.Divergence.String()))
		} else {
			fmt.Fprintf(a.stdout, "ok   %s: %d ticks match\n", name, rep.Recorded)
		}
		if w := wakeReasons(s); w != "" {
			fmt.Fprintf(a.stdout, "     wakes by reason: %s (attention %s)\n", w, s.Header.AttentionMode())
		}
		if len(rep.Prompts) > 0 {
			changed++
			a.printPromptChanges(name, rep.Prompts)
		}
		if counter != nil {
			if err := replay.CostOf(s, rep, counter).Write(a.stdout, name); err != nil {
				fmt.Fprintf(a.stdout, "FAIL %s: cost: %v\n", name, err)
				failed++
			}
		}
		refreshed[i] = replay.Refresh(s, rep)
	}
	if update && failed == 0 && changed > 0 {
		if err := replay.WriteFile(file, refreshed); err != nil {
			fmt.Fprintf(a.stdout, "FAIL %s: update: %v\n", file, err)
			return 1, changed
		}
		fmt.Fprintf(a.stdout, "updated %s with the prompts rendered now\n", file)
		// Accepted: no longer a change.
		return 0, 0
	}
	return failed, changed
}

// wakeReasons counts a session's wakes by the reason they started:
// "addressed:mention 3, message 1".
func wakeReasons(s *replay.Session) string {
	var order []string
	n := map[string]int{}
	last := int64(-1)
	for _, t := range s.Ticks() {
		if t.Wake == last {
			continue
		}
		last = t.Wake
		if n[t.Trigger] == 0 {
			order = append(order, t.Trigger)
		}
		n[t.Trigger]++
	}
	parts := make([]string, len(order))
	for i, r := range order {
		parts[i] = fmt.Sprintf("%s %d", r, n[r])
	}
	return strings.Join(parts, ", ")
}

// printPromptChanges prints each distinct change once, then the other
// ticks it also appears in: a template edit changes every tick's request
// the same way.
func (a *app) printPromptChanges(name string, changes []replay.PromptChange) {
	fmt.Fprintf(a.stdout, "prompt changed in %s: %d of its ticks\n", name, len(changes))
	type group struct {
		diff  string
		ticks []int
	}
	var groups []*group
	byBody := map[string]*group{}
	for _, c := range changes {
		body := c.Diff
		// The first two lines name the ticks; the rest is the change.
		if _, rest, ok := strings.Cut(body, "\n"); ok {
			if _, rest, ok = strings.Cut(rest, "\n"); ok {
				body = rest
			}
		}
		if g, ok := byBody[body]; ok {
			g.ticks = append(g.ticks, c.Tick)
			continue
		}
		g := &group{diff: c.Diff}
		byBody[body] = g
		groups = append(groups, g)
	}
	for _, g := range groups {
		fmt.Fprint(a.stdout, g.diff)
		if len(g.ticks) > 0 {
			fmt.Fprintf(a.stdout, "(the same change in ticks %s)\n", ranges(g.ticks))
		}
	}
}

// ranges writes increasing numbers compactly: 2-5, 7, 9-10.
func ranges(ns []int) string {
	var parts []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", ns[i], ns[j]))
		} else {
			parts = append(parts, fmt.Sprint(ns[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

func indentRest(s string) string {
	return strings.ReplaceAll(s, "\n", "\n     ")
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// runtimeLogger is the logger of runtimes opened for replay: their logs
// (including the recorded model failures they play back) are noise next to
// the report, so they are kept only at LOG_LEVEL=debug.
func runtimeLogger(cfg config, log *zap.Logger) *zap.Logger {
	if cfg.LogLevel == "debug" {
		return log
	}
	return zap.NewNop()
}
