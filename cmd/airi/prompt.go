package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/state"
)

// renderState is the --state file of `airi prompt render`; every field is
// optional.
type renderState struct {
	Channel *struct {
		ID      string   `json:"id"`
		Title   string   `json:"title"`
		Members []string `json:"members"`
	} `json:"channel"`
	History  []renderMessage `json:"history"`
	Incoming []renderMessage `json:"incoming"`
	Actions  []struct {
		Action json.RawMessage `json:"action"`
		Result string          `json:"result"`
		OK     *bool           `json:"ok"`
	} `json:"actions"`
	Unread map[string]int `json:"unread"`
	Now    string         `json:"now"`
}

type renderMessage struct {
	ID      string `json:"id"`
	Sender  string `json:"sender"`
	Content string `json:"content"`
	Self    bool   `json:"self"`
	Time    string `json:"time"`
}

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
	in, err := sampleRenderInput(*platform, *group)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi prompt render:", err)
		return exitFailure
	}
	if *stateFile != "" {
		raw, err := os.ReadFile(*stateFile)
		if err != nil {
			fmt.Fprintln(a.stderr, "airi prompt render:", err)
			return exitUsage
		}
		if err := applyRenderState(&in, raw); err != nil {
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

// sampleRenderInput is the built-in situation `airi prompt render` shows:
// a few messages of history, two new ones and another channel with unread
// messages.
func sampleRenderInput(platform string, group bool) (planner.Input, error) {
	now := time.Date(2026, 3, 14, 21, 40, 0, 0, time.UTC)
	ch := state.Channel{ID: "42", Platform: platform, Title: "Ada"}
	if group {
		ch = state.Channel{ID: "-1001234567890", Platform: platform, Group: true, Title: "Harbour Lights", Members: []string{"Ada", "Bo", "Cyril"}}
	}
	at := func(min int) time.Time { return now.Add(time.Duration(min-30) * time.Minute) }
	msg := func(id int64, sender, text string, self bool, min int) state.Message {
		return state.Message{ID: id, ChannelID: ch.ID, PlatformID: strconv.FormatInt(id, 10), SenderName: sender, Content: text, Self: self, Time: at(min), Read: true}
	}
	in := planner.Input{
		Platform: platform,
		Channel:  ch,
		Now:      now,
		Wake:     1,
		Channels: []state.Channel{ch, {ID: "-1009876543210", Platform: platform, Group: true, Title: "Night Sky Club"}},
		Unread:   map[string]int{"-1009876543210": 3},
	}
	if group {
		in.History = []state.Message{
			msg(101, "Ada", "anyone up for the meteor shower tonight?", false, 1),
			msg(102, "Bo", "if the clouds behave", false, 3),
			msg(103, "Juni", "they won't. they never do. bring a thermos anyway", true, 4),
			msg(104, "Cyril", "what time does it peak?", false, 9),
		}
		in.Incoming = []state.Message{
			msg(105, "Ada", "@Juni you'd know, when's the peak?", false, 29),
			msg(106, "Bo", "and which direction do we look", false, 30),
		}
		in.Incoming[0].Mentioned = true
	} else {
		in.History = []state.Message{
			msg(101, "Ada", "I finally bought a telescope", false, 1),
			msg(102, "Juni", "oh no. you're one of us now. what kind?", true, 2),
		}
		in.Incoming = []state.Message{msg(103, "Ada", "a small refractor, 80mm. what should I look at first?", false, 30)}
	}
	in.HistoryTotal = len(in.History)
	return in, nil
}

// applyRenderState replaces the sample's parts that the --state file gives.
func applyRenderState(in *planner.Input, raw []byte) error {
	var st renderState
	if err := json.Unmarshal(raw, &st); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	if st.Now != "" {
		t, err := time.Parse(time.RFC3339, st.Now)
		if err != nil {
			return fmt.Errorf("now: %w", err)
		}
		in.Now = t
	}
	if st.Channel != nil {
		if st.Channel.ID != "" {
			in.Channel.ID = st.Channel.ID
		}
		if st.Channel.Title != "" {
			in.Channel.Title = st.Channel.Title
		}
		if st.Channel.Members != nil {
			in.Channel.Members = st.Channel.Members
		}
		in.Channels[0] = in.Channel
	}
	conv := func(field string, ms []renderMessage, read bool) ([]state.Message, error) {
		out := make([]state.Message, 0, len(ms))
		for i, m := range ms {
			t := in.Now
			if m.Time != "" {
				var err error
				if t, err = time.Parse(time.RFC3339, m.Time); err != nil {
					return nil, fmt.Errorf("%s[%d].time: %w", field, i, err)
				}
			}
			id := m.ID
			if id == "" {
				id = fmt.Sprintf("%s-%d", field, i+1)
			}
			out = append(out, state.Message{ChannelID: in.Channel.ID, PlatformID: id, SenderName: m.Sender, Content: m.Content, Self: m.Self, Time: t, Read: read})
		}
		return out, nil
	}
	var err error
	if st.History != nil {
		if in.History, err = conv("history", st.History, true); err != nil {
			return err
		}
		in.HistoryTotal = len(in.History)
	} else {
		for i := range in.History {
			in.History[i].ChannelID = in.Channel.ID
		}
	}
	if st.Incoming != nil {
		if in.Incoming, err = conv("incoming", st.Incoming, false); err != nil {
			return err
		}
	} else {
		for i := range in.Incoming {
			in.Incoming[i].ChannelID = in.Channel.ID
		}
	}
	if st.Actions != nil {
		in.Actions = nil
		for i, a := range st.Actions {
			var head struct {
				Action string `json:"action"`
			}
			if len(a.Action) > 0 {
				if err := json.Unmarshal(a.Action, &head); err != nil {
					return fmt.Errorf("actions[%d].action: %w", i, err)
				}
			}
			ok := true
			if a.OK != nil {
				ok = *a.OK
			}
			in.Actions = append(in.Actions, state.ActionRecord{ChannelID: in.Channel.ID, Wake: in.Wake, Action: a.Action, Name: head.Action, OK: ok, Result: a.Result, Time: in.Now})
		}
	}
	if st.Unread != nil {
		in.Unread = st.Unread
	}
	return nil
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
	written, err := writeTemplates(prompts.Embedded(), dir, *force)
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

// writeTemplates copies the templates of src into dir, creating it, and
// returns the paths written. Without force it refuses, before writing
// anything, when one of the files exists. Each file is written to a
// temporary name first and renamed into place only once all are written,
// so a failure leaves no template half-written.
func writeTemplates(src fs.FS, dir string, force bool) ([]string, error) {
	entries, err := fs.ReadDir(src, ".")
	if err != nil {
		return nil, fmt.Errorf("read embedded templates: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
			names = append(names, e.Name())
		}
	}
	if !force {
		var exist []string
		for _, n := range names {
			p := filepath.Join(dir, n)
			if _, err := os.Lstat(p); err == nil {
				exist = append(exist, p)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
		}
		if len(exist) > 0 {
			return nil, fmt.Errorf("%s already exists (nothing written; --force overwrites it)", strings.Join(exist, ", "))
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("make %s: %w", dir, err)
	}
	var temps []string
	cleanup := func() {
		for _, t := range temps {
			_ = os.Remove(t)
		}
	}
	for _, n := range names {
		body, err := fs.ReadFile(src, n)
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("read embedded %s: %w", n, err)
		}
		f, err := os.CreateTemp(dir, "."+n+".*")
		if err != nil {
			cleanup()
			return nil, err
		}
		temps = append(temps, f.Name())
		_, werr := f.Write(body)
		cerr := f.Close()
		if err := errors.Join(werr, cerr); err != nil {
			cleanup()
			return nil, fmt.Errorf("write %s: %w", filepath.Join(dir, n), err)
		}
		if err := os.Chmod(f.Name(), 0o644); err != nil {
			cleanup()
			return nil, err
		}
	}
	var written []string
	for i, n := range names {
		p := filepath.Join(dir, n)
		if err := os.Rename(temps[i], p); err != nil {
			cleanup()
			return written, fmt.Errorf("write %s: %w", p, err)
		}
		written = append(written, p)
	}
	return written, nil
}
