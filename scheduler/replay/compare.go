package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/state"
)

// Report is what one replay found.
type Report struct {
	// Recorded and Replayed count the ticks of the recording and of the replay.
	Recorded, Replayed int
	// Divergence is the first tick whose action or effects differ from the
	// recording; nil when they all match.
	Divergence *Divergence
	// Prompts lists the ticks whose rendered request differs from the
	// recorded one (only with Options.Prompts).
	Prompts []PromptChange
	// Rendered holds, with Options.Prompts, the request each recorded tick
	// renders now, by tick number (from 1).
	Rendered map[int][]state.ChatMessage
	// Sections holds, with Options.Prompts, where each prompt section
	// lies in the request rendered now, by tick number (from 1).
	Sections map[int][]state.Section
}

// Refresh returns a copy of s whose ticks carry the requests the replay
// rendered, to accept a deliberate prompt change (airi replay --update).
// Ticks the replay did not reach keep their recorded request.
func Refresh(s *Session, rep *Report) *Session {
	out := &Session{Header: s.Header, Items: make([]Item, len(s.Items))}
	n := 0
	for i, it := range s.Items {
		if it.Tick == nil {
			out.Items[i] = it
			continue
		}
		n++
		t := *it.Tick
		if req, ok := rep.Rendered[n]; ok {
			t.Request = req
		}
		out.Items[i] = Item{Tick: &t}
	}
	return out
}

// Divergence is a tick where the runtime acted differently.
type Divergence struct {
	// Tick numbers the tick in the session, from 1.
	Tick    int
	Wake    int64
	Trigger string
	// What names what differs: "action", "effects", "model error", "tool
	// call" (a call the recording has no result for), "missing tick",
	// "extra tick", or "reminder" (a reminder sent differently; Tick is
	// then the number of ticks before it).
	What     string
	Expected string
	Got      string
}

// String writes the divergence for people, on several lines.
func (d *Divergence) String() string {
	if d.What == "reminder" {
		return fmt.Sprintf("after tick %d: a reminder differs\n  expected: %s\n  got:      %s", d.Tick, d.Expected, d.Got)
	}
	return fmt.Sprintf("tick %d (wake %d, trigger %s): %s differs\n  expected: %s\n  got:      %s",
		d.Tick, d.Wake, d.Trigger, d.What, d.Expected, d.Got)
}

// PromptChange is a tick whose request rendered differently.
type PromptChange struct {
	Tick int
	// Diff is a unified diff from the recorded request to the replayed one.
	Diff string
}

func (p *player) report() *Report {
	r := &Report{Recorded: len(p.ticks)}
	for w, wk := range p.wakes {
		got := p.got[w]
		r.Replayed += len(got)
		for i := 0; i <= wk.last-wk.first || i < len(got); i++ {
			k := wk.first + i
			var exp *Tick
			if k <= wk.last {
				exp = p.ticks[k]
			}
			switch {
			case exp == nil:
				if p.cut[w] {
					// The recording stops in this wake: the replay
					// stopped there too, with one call left unanswered.
					continue
				}
				if r.Divergence == nil {
					last := p.ticks[wk.last]
					r.Divergence = &Divergence{Tick: wk.last + 1, Wake: last.Wake, Trigger: last.Trigger, What: "extra tick",
						Expected: "the wake to end after this tick", Got: "another tick: " + summary(got[i])}
				}
				continue
			case i >= len(got):
				if r.Divergence == nil {
					r.Divergence = &Divergence{Tick: k + 1, Wake: exp.Wake, Trigger: exp.Trigger, What: "missing tick",
						Expected: summaryOf(exp), Got: "the wake ended before this tick"}
				}
				continue
			}
			if p.cutServed[k] {
				continue
			}
			if m, ok := p.toolMiss[k]; ok && r.Divergence == nil {
				r.Divergence = &Divergence{Tick: k + 1, Wake: exp.Wake, Trigger: exp.Trigger, What: "tool call",
					Expected: m.expected, Got: m.got + " (the recording has no result for it)"}
			}
			if d := diverge(exp, got[i]); d != nil && r.Divergence == nil {
				d.Tick, d.Wake, d.Trigger = k+1, exp.Wake, exp.Trigger
				r.Divergence = d
			}
			if p.opt.Prompts {
				if r.Rendered == nil {
					r.Rendered = map[int][]state.ChatMessage{}
					r.Sections = map[int][]state.Section{}
				}
				r.Rendered[k+1] = got[i].Request
				r.Sections[k+1] = got[i].Sections
				if diff := RequestDiff(exp.Request, got[i].Request,
					fmt.Sprintf("recorded tick %d", k+1), fmt.Sprintf("replayed tick %d", k+1)); diff != "" {
					r.Prompts = append(r.Prompts, PromptChange{Tick: k + 1, Diff: diff})
				}
			}
		}
	}
	// A reminder's difference counts where it came, between the ticks.
	if d := p.remDiv; d != nil && (r.Divergence == nil || d.Tick < r.Divergence.Tick) {
		r.Divergence = d
	}
	return r
}

// diverge compares what one tick did: its model error, its action (or
// that the answer did not parse) and its effects.
func diverge(exp *Tick, got state.Tick) *Divergence {
	if e, g := modelErrorKind(exp.ModelError), modelErrorKind(got.ModelError); e != g {
		return &Divergence{What: "model error", Expected: orNone(exp.ModelError), Got: orNone(got.ModelError)}
	}
	if exp.ModelError != "" {
		return nil
	}
	if !sameJSON(exp.Action, got.Action) {
		return &Divergence{What: "action", Expected: actionText(exp.Action, exp.ParseError), Got: actionText(got.Action, got.ParseError)}
	}
	var effects []actions.Effect
	if len(got.Effects) > 0 {
		if err := json.Unmarshal(got.Effects, &effects); err != nil {
			return &Divergence{What: "effects", Expected: effectsText(exp.EffectList()), Got: "unreadable effects: " + err.Error()}
		}
	}
	if want := exp.EffectList(); !sameEffects(want, effects) {
		return &Divergence{What: "effects", Expected: effectsText(want), Got: effectsText(effects)}
	}
	return nil
}

func modelErrorKind(s string) string {
	switch {
	case s == "":
		return ""
	case strings.HasPrefix(s, interruptedPrefix):
		return "interrupted"
	default:
		return "failed"
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func actionText(a json.RawMessage, parseErr string) string {
	if len(a) == 0 {
		if parseErr != "" {
			return "no action, parse error: " + parseErr
		}
		return "no action"
	}
	return string(compact(a))
}

func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(compact(a), compact(b))
	}
	return reflect.DeepEqual(x, y)
}

// sameEffects compares effects field by field, a tool call's arguments
// as JSON values.
func sameEffects(a, b []actions.Effect) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if !sameJSON(x.Args, y.Args) {
			return false
		}
		x.Args, y.Args = nil, nil
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

func effectsText(e []actions.Effect) string {
	if len(e) == 0 {
		return "no effects"
	}
	var b strings.Builder
	for i, x := range e {
		if i > 0 {
			b.WriteString("; ")
		}
		if x.Kind == actions.EffectTool {
			fmt.Fprintf(&b, "tool call %s: %s", callText(x.Tool, x.Args), x.Outcome)
			if x.Error != "" {
				fmt.Fprintf(&b, " (%s)", x.Error)
			}
			fmt.Fprintf(&b, ", text %q", x.Content)
			continue
		}
		fmt.Fprintf(&b, "%s to %q: %q", x.Kind, x.ChannelID, x.Content)
		if x.ReplyTo != "" {
			fmt.Fprintf(&b, " (reply to %s)", x.ReplyTo)
		}
		if x.MessageID != "" {
			fmt.Fprintf(&b, " [id %s]", x.MessageID)
		}
	}
	return b.String()
}

func summaryOf(t *Tick) string {
	if t.ModelError != "" {
		return "model error: " + t.ModelError
	}
	return actionText(t.Action, t.ParseError)
}

func summary(t state.Tick) string {
	if t.ModelError != "" {
		return "model error: " + t.ModelError
	}
	return actionText(t.Action, t.ParseError)
}

// renderRequest lays a request out as lines for diffing: a marker line per
// message with its position and role, then its content.
func renderRequest(msgs []state.ChatMessage) []string {
	var out []string
	for i, m := range msgs {
		out = append(out, fmt.Sprintf("=== message %d (%s)", i+1, m.Role))
		out = append(out, strings.Split(m.Content, "\n")...)
	}
	return out
}
