package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/parse"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/tools"
)

// toolRoom joins the MCP tools to the bot's prompt, parser and dispatcher
// without changing them: the catalog a chat sees lists the tools its
// current senders may use, an answer naming a tool is read against the
// tool's input schema, and a call runs only for a sender the rules allow.
type toolRoom struct {
	m   *tools.Manager
	log *zap.Logger

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

func newToolRoom(m *tools.Manager, log *zap.Logger, p scheduler.Prompter, ps scheduler.Parser, d scheduler.Dispatcher) *toolRoom {
	return &toolRoom{m: m, log: log.Named("tools"), prompter: p, parser: ps, disp: d, senders: map[string]wakeSenders{}}
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
	in.Tools = tools.Text(r.m.Policy().Allowed(r.m.Catalog(), w.ids, w.group))
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
	if allowed, why := r.m.Policy().Allows(name, w.ids, w.group); !allowed {
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
