package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/sample"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/state"
)

func (a *app) cmdPromptRender(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("prompt render", flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	platform := fs.String("platform", "console", "adapter whose rules apply: telegram, satori or console")
	group := fs.Bool("group", false, "render a group chat instead of a direct one")
	stateFile := fs.String("state", "", "JSON file with the channel, history, incoming messages, actions, unread counts and time")
	asJSON := fs.Bool("json", false, `print {"messages":[{"role","content"}]} exactly as the model receives it`)
	if code, ok := a.parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(a.stderr, "airi prompt render: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	switch *platform {
	case "telegram", "satori", "console":
	default:
		fmt.Fprintf(a.stderr, "airi prompt render: --platform %q: want telegram, satori or console\n", *platform)
		return exitUsage
	}
	limit := planner.DefaultHistoryLimit
	if v := a.getenv("AIRI_HISTORY"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			fmt.Fprintf(a.stderr, "airi prompt render: AIRI_HISTORY=%q: want a positive integer\n", v)
			return exitUsage
		}
		limit = n
	}
	maxTokens := planner.DefaultMaxTokens
	if v := a.getenv("AIRI_PROMPT_MAX_TOKENS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < minPromptTokens {
			fmt.Fprintf(a.stderr, "airi prompt render: AIRI_PROMPT_MAX_TOKENS=%q: want a whole number of at least %d\n", v, minPromptTokens)
			return exitUsage
		}
		maxTokens = n
	}
	in := sample.Input(*platform, *group)
	if *stateFile != "" {
		raw, err := os.ReadFile(*stateFile)
		if err != nil {
			fmt.Fprintln(a.stderr, "airi prompt render:", err)
			return exitUsage
		}
		if err := sample.Apply(&in, raw); err != nil {
			fmt.Fprintf(a.stderr, "airi prompt render: --state %s: %v\n", *stateFile, err)
			return exitUsage
		}
	}
	in.BotName = a.getenv("AIRI_BOT_NAME")
	in.Language = a.getenv("LLM_RESPONSE_LANGUAGE")

	src, err := prompts.Load(a.getenv("PROMPTS_DIR"), a.promptLogger())
	if err != nil {
		fmt.Fprintln(a.stderr, "airi prompt render:", err)
		return exitFailure
	}
	reg, err := actions.NewBuiltinRegistry(actions.Handlers{})
	if err != nil {
		fmt.Fprintln(a.stderr, "airi prompt render:", err)
		return exitFailure
	}
	b := planner.NewBuilder(src, reg, planner.BuilderOptions{HistoryLimit: limit, MaxTokens: maxTokens})
	// The store would return at most the window; the sample or file may hold more.
	if len(in.History) > limit {
		in.History = in.History[len(in.History)-limit:]
	}
	p, err := b.Build(ctx, in)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi prompt render:", err)
		return exitFailure
	}
	if *asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Messages []state.ChatMessage `json:"messages"`
		}{p.Messages}); err != nil {
			fmt.Fprintln(a.stderr, "airi prompt render:", err)
			return exitFailure
		}
		return exitOK
	}
	if err := p.WriteText(a.stdout); err != nil {
		fmt.Fprintln(a.stderr, "airi prompt render:", err)
		return exitFailure
	}
	return exitOK
}

// promptLogger logs warnings and errors to stderr for one-shot commands.
func (a *app) promptLogger() *zap.Logger {
	enc := zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig())
	return zap.New(zapcore.NewCore(enc, zapcore.AddSync(a.stderr), zapcore.WarnLevel))
}

// cmdPromptInit writes the embedded templates into a directory, for the
// user to edit there and load with PROMPTS_DIR.
func (a *app) cmdPromptInit(_ context.Context, args []string) int {
	fs := a.flags("prompt init")
	force := fs.Bool("force", false, "overwrite templates that already exist in DIR")
	// Flags may follow the directory ("airi prompt init prompts --force").
	var pos []string
	for {
		if code, ok := a.parseFlags(fs, args); !ok {
			return code
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != 1 {
		fmt.Fprintln(a.stderr, "airi prompt init: name the directory to write the templates into")
		return exitUsage
	}
	dir := pos[0]
	written, err := prompts.WriteTemplates(prompts.Embedded(), dir, *force)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi prompt init:", err)
		return exitFailure
	}
	for _, p := range written {
		fmt.Fprintln(a.stdout, "wrote", p)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	fmt.Fprintf(a.stdout, "\nEdit them, then run airi with\n  PROMPTS_DIR=%s\n", abs)
	return exitOK
}
