package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/parse"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/tools"
)

// toolRoom joins the MCP tools to the bot's prompt, parser and dispatcher
// without changing them: the catalog a chat sees lists the tools its
// current senders may use, an answer naming a tool is read against the
// tool's input schema, and a call runs only for a sender the rules allow.
type toolRoom struct {
	m      ToolBox
	policy tools.Policy
	log    *zap.Logger
	// keep stores the catalog whenever it changes, for a session's
	// export to carry it; kept is the last one stored.
	keep func(ctx context.Context, catalog []byte) error
	kept []byte

	prompter scheduler.Prompter
	parser   scheduler.Parser
	disp     scheduler.Dispatcher
	// onCall, when set, sees each call's outcome and latency.
	onCall func(tool, outcome string, took time.Duration)

	mu sync.Mutex
	// senders are the people whose messages the channel's wake answers,
	// as its latest request showed them; a later request of the same
	// wake (which shows no new message) keeps them.
	senders map[string]wakeSenders
}

type wakeSenders struct {
	ids   []string
	group bool
}

// ToolBox is where the bot's tool calls go: the MCP servers of a
// tools.Manager, or the recording a replay answers from.
type ToolBox interface {
	// Catalog returns every tool, sorted by name.
	Catalog() []tools.Tool
	// Lookup returns the tool named "<server>.<tool>".
	Lookup(full string) (tools.Tool, bool)
	// Call runs a tool and returns its text; errors wrapping
	// tools.ErrTimeout and tools.ErrUnavailable are those outcomes, any
	// other error (text or not) is the outcome "error".
	Call(ctx context.Context, full string, args json.RawMessage) (string, error)
}

var _ ToolBox = (*tools.Manager)(nil)

func newToolRoom(m ToolBox, policy tools.Policy, log *zap.Logger, p scheduler.Prompter, ps scheduler.Parser, d scheduler.Dispatcher) *toolRoom {
	return &toolRoom{m: m, policy: policy, log: log.Named("tools"), prompter: p, parser: ps, disp: d, senders: map[string]wakeSenders{}}
}

// CatalogKey is the store key (a cursor) under which the bot keeps the
// tool catalog as it last listed it: a JSON array of replay.ToolSpec.
const CatalogKey = "tools:catalog"

// keepCatalog stores catalog when it differs from the one stored last.
func (r *toolRoom) keepCatalog(ctx context.Context, catalog []tools.Tool) {
	if r.keep == nil {
		return
	}
	specs := make([]replay.ToolSpec, len(catalog))
	for i, t := range catalog {
		specs[i] = replay.ToolSpec{Name: t.Name, Description: t.Description, Schema: t.Schema}
	}
	raw, err := json.Marshal(specs)
	if err != nil {
		r.log.Warn("encode the tool catalog", zap.Error(err))
		return
	}
	r.mu.Lock()
	same := bytes.Equal(raw, r.kept)
	r.mu.Unlock()
	if same {
		return
	}
	if err := r.keep(ctx, raw); err != nil {
		r.log.Warn("store the tool catalog", zap.Error(err))
		return
	}
	r.mu.Lock()
	r.kept = raw
	r.mu.Unlock()
}

// Tools is the bot's tool manager; nil when no MCP server is configured.
func (b *Bot) Tools() *tools.Manager { return b.tools }

// HistoryLimit is the builder's.
func (r *toolRoom) HistoryLimit() int { return r.prompter.HistoryLimit() }

// Build adds the tools the channel's senders may use to the catalog. The
// text is a function of the tool lists and the senders' authority only,
// so the system message stays byte-identical while neither changes.
func (r *toolRoom) Build(ctx context.Context, in planner.Input) (planner.Prompt, error) {
	var ids []string
	seen := map[string]bool{}
	for _, m := range in.Incoming {
		if m.Self || m.SenderID == "" || seen[m.SenderID] {
			continue
		}
		seen[m.SenderID] = true
		ids = append(ids, m.SenderID)
	}
	r.mu.Lock()
	w, had := r.senders[in.Channel.ID]
	if len(ids) > 0 || !had {
		w = wakeSenders{ids: ids, group: in.Channel.Group}
		r.senders[in.Channel.ID] = w
	}
	r.mu.Unlock()
	catalog := r.m.Catalog()
	r.keepCatalog(ctx, catalog)
	in.Tools = tools.Text(r.policy.Allowed(catalog, w.ids, w.group))
	return r.prompter.Build(ctx, in)
}

func (r *toolRoom) observe(tool, outcome string, took time.Duration) {
	if r.onCall != nil {
		r.onCall(tool, outcome, took)
	}
}

// Parse reads a tool call, or hands the answer to the bot's parser.
func (r *toolRoom) Parse(raw string) (parse.Result, error) {
	name, args, ok, err := tools.ParseCall(raw, func(n string) bool { _, ok := r.m.Lookup(n); return ok })
	if !ok {
		return r.parser.Parse(raw)
	}
	if err == nil {
		t, _ := r.m.Lookup(name)
		err = t.Validate(json.RawMessage(args))
	}
	if err != nil {
		return parse.Result{}, &parse.Error{Reason: err.Error()}
	}
	return parse.Result{Action: actions.Action{Name: name, Params: args}}, nil
}

// Dispatch runs a tool call for an allowed sender, or hands the call to
// the bot's dispatcher. Refusals, errors and timeouts are results the
// model reads; every tool call gives the next call, and its tick records
// the call, its outcome and the tool's text as an effect.
func (r *toolRoom) Dispatch(ctx context.Context, call actions.Call) actions.Result {
	args, ok := call.Action.Params.(tools.Args)
	if !ok {
		return r.disp.Dispatch(ctx, call)
	}
	name := call.Action.Name
	r.mu.Lock()
	w := r.senders[call.Channel]
	r.mu.Unlock()
	log := r.log.With(zap.String("channel", call.Channel), zap.String("tool", name))
	effect := actions.Effect{Kind: actions.EffectTool, ChannelID: call.Channel, Tool: name, Args: json.RawMessage(args)}
	if allowed, why := r.policy.Allows(name, w.ids, w.group); !allowed {
		log.Info("tool call refused", zap.String("reason", why))
		r.observe(name, tools.OutcomeRefused, 0)
		effect.Outcome, effect.Error = tools.OutcomeRefused, why
		return actions.Result{Next: true, Text: fmt.Sprintf("%s refused: %s", name, why), Effects: []actions.Effect{effect}}
	}
	began := time.Now()
	text, err := r.m.Call(ctx, name, []byte(args))
	took := time.Since(began)
	effect.Content = text
	if err != nil {
		log.Info("tool call failed", zap.Error(err))
		outcome := tools.OutcomeError
		switch {
		case errors.Is(err, tools.ErrTimeout):
			outcome = tools.OutcomeTimeout
		case errors.Is(err, tools.ErrUnavailable):
			outcome = tools.OutcomeUnavailable
		}
		r.observe(name, outcome, took)
		effect.Outcome, effect.Error = outcome, err.Error()
		msg := fmt.Sprintf("%s failed: %v", name, err)
		if text != "" {
			msg += "\n" + tools.Mark(name, text)
		}
		return actions.Result{Next: true, Text: msg, Effects: []actions.Effect{effect}}
	}
	r.observe(name, tools.OutcomeOK, took)
	effect.Outcome = tools.OutcomeOK
	return actions.Result{OK: true, Next: true, Text: tools.Mark(name, text), Effects: []actions.Effect{effect}}
}

// recordedTools is the catalog of a recorded session, its calls answered
// from the recording: a replay runs no tool server.
type recordedTools struct {
	catalog []tools.Tool
	calls   replay.ToolCaller
}

func newRecordedTools(h *replay.Tools, calls replay.ToolCaller) (*recordedTools, error) {
	r := &recordedTools{calls: calls}
	for _, s := range h.Catalog {
		t, err := tools.FromSchema(s.Name, s.Description, s.Schema)
		if err != nil {
			return nil, fmt.Errorf("read the session's tool catalog: %w", err)
		}
		r.catalog = append(r.catalog, t)
	}
	sort.Slice(r.catalog, func(i, j int) bool { return r.catalog[i].Name < r.catalog[j].Name })
	return r, nil
}

func (r *recordedTools) Catalog() []tools.Tool { return slices.Clone(r.catalog) }

func (r *recordedTools) Lookup(full string) (tools.Tool, bool) {
	for _, t := range r.catalog {
		if t.Name == full {
			return t, true
		}
	}
	return tools.Tool{}, false
}

// Call answers from the recording; a recorded failure comes back as the
// error it was, with its outcome.
func (r *recordedTools) Call(ctx context.Context, full string, args json.RawMessage) (string, error) {
	text, err := r.calls.CallTool(ctx, full, args)
	var te *replay.ToolError
	if errors.As(err, &te) {
		switch te.Outcome {
		case tools.OutcomeTimeout:
			return text, recordedToolError{text: te.Text, kind: tools.ErrTimeout}
		case tools.OutcomeUnavailable:
			return text, recordedToolError{text: te.Text, kind: tools.ErrUnavailable}
		}
	}
	return text, err
}

// recordedToolError is a recorded failure: its text as recorded, and the
// sentinel of its outcome.
type recordedToolError struct {
	text string
	kind error
}

func (e recordedToolError) Error() string { return e.text }
func (e recordedToolError) Unwrap() error { return e.kind }

var _ ToolBox = (*recordedTools)(nil)

// sessionTools returns the header's record of tools: the catalog the bot
// stored (CatalogKey) and the rules of policy.
func sessionTools(catalog string, policy tools.Policy) (*replay.Tools, error) {
	h := &replay.Tools{Catalog: []replay.ToolSpec{}, Groups: policy.Groups, AllowUsers: policy.AllowUsers}
	if catalog != "" {
		if err := json.Unmarshal([]byte(catalog), &h.Catalog); err != nil {
			return nil, fmt.Errorf("read the stored tool catalog: %w", err)
		}
	}
	for name, r := range policy.PerTool {
		if h.PerTool == nil {
			h.PerTool = map[string]replay.ToolRule{}
		}
		h.PerTool[name] = replay.ToolRule{Groups: r.Groups, AllowUsers: r.AllowUsers}
	}
	return h, nil
}

// sessionPolicy returns the rules a session's header records.
func sessionPolicy(h *replay.Tools) tools.Policy {
	p := tools.Policy{Rule: tools.Rule{Groups: h.Groups, AllowUsers: h.AllowUsers}}
	for name, r := range h.PerTool {
		if p.PerTool == nil {
			p.PerTool = map[string]tools.Rule{}
		}
		p.PerTool[name] = tools.Rule{Groups: r.Groups, AllowUsers: r.AllowUsers}
	}
	return p
}
