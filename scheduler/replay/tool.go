package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/airi-go/airi/actions"
)

// Tools are the tools of a session's header: the catalog as the bot last
// listed it and the rules of who could use each tool (the "tools" keys
// of the configuration).
type Tools struct {
	Catalog []ToolSpec `json:"catalog"`
	// Groups and AllowUsers are the top rule, PerTool the rules of single
	// tools by full name.
	Groups     string              `json:"groups,omitempty"`
	AllowUsers []string            `json:"allowUsers,omitempty"`
	PerTool    map[string]ToolRule `json:"perTool,omitempty"`
}

// ToolRule is who could use one tool; empty fields inherit the top rule.
type ToolRule struct {
	Groups     string   `json:"groups,omitempty"`
	AllowUsers []string `json:"allowUsers,omitempty"`
}

// ToolSpec is one tool as the model was offered it: its full name
// ("<server>.<tool>"), description and input schema.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema,omitempty"`
}

// ToolError is a tool call the recording shows failing: Outcome is how
// ("error", "timeout", "unavailable") and Text the error as recorded.
type ToolError struct {
	Outcome string
	Text    string
}

func (e *ToolError) Error() string { return e.Text }

// ErrToolNotRecorded is what a replayed tool call gets when its tick
// recorded no such call: another tool, other arguments, or none.
var ErrToolNotRecorded = errors.New("replay: the recording has no result for this tool call")

// ToolCaller answers tool calls from the recording.
type ToolCaller interface {
	CallTool(ctx context.Context, full string, args json.RawMessage) (string, error)
}

// toolMiss is a replayed tool call the recording could not answer.
type toolMiss struct {
	expected, got string
}

// CallTool answers a tool call of the call in flight with the result its
// tick recorded: the tool's text and, for a failed call, a *ToolError.
// A call the tick did not record, with other arguments, or one the
// recording shows refused, is not run: it fails with ErrToolNotRecorded
// and the replay reports it as a divergence.
func (p *player) CallTool(_ context.Context, full string, args json.RawMessage) (string, error) {
	p.mu.Lock()
	k := p.serving
	p.mu.Unlock()
	got := callText(full, args)
	if k < 0 {
		return "", fmt.Errorf("%w: %s outside a recorded tick", ErrToolNotRecorded, got)
	}
	var rec *actions.Effect
	for _, e := range p.ticks[k].EffectList() {
		if e.Kind == actions.EffectTool {
			rec = &e
			break
		}
	}
	miss := func(expected string) (string, error) {
		p.mu.Lock()
		if p.toolMiss == nil {
			p.toolMiss = map[int]toolMiss{}
		}
		p.toolMiss[k] = toolMiss{expected: expected, got: got}
		p.mu.Unlock()
		return "", fmt.Errorf("%w: tick %d recorded %s; this replay calls %s", ErrToolNotRecorded, k+1, expected, got)
	}
	switch {
	case rec == nil:
		return miss("no tool call")
	case rec.Tool != full || !sameJSON(rec.Args, args):
		return miss(callText(rec.Tool, rec.Args))
	case rec.Outcome == "refused":
		return miss(callText(rec.Tool, rec.Args) + " refused (" + rec.Error + ")")
	case rec.Outcome == "ok":
		return rec.Content, nil
	}
	return rec.Content, &ToolError{Outcome: rec.Outcome, Text: rec.Error}
}

func callText(full string, args json.RawMessage) string {
	if len(args) == 0 {
		return full + " {}"
	}
	return full + " " + string(compact(args))
}

var _ ToolCaller = (*player)(nil)
