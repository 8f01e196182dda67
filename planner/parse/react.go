package parse

import (
	"strings"

	"github.com/airi-go/airi/actions"
)

// react reads the ReAct layout: "Action: name" and "Action Input: {...}".
// ok reports that the layout was present.
func (p *Parser) react(text string, r *run) (actions.Action, bool, *Error) {
	if indexFold(text, "action:") < 0 {
		return actions.Action{}, false, nil
	}
	var name, input, thought string
	extra := 0 // further Action lines: actions not run
	inInput := false
	open := 0 // braces open before the current line
	for _, line := range strings.Split(text, "\n") {
		inside := open > 0
		open += strings.Count(line, "{") - strings.Count(line, "}")
		if inside && !inInput {
			// A line inside an object (an unquoted "action:" key) is JSON,
			// not the ReAct layout.
			continue
		}
		t := strings.TrimLeft(line, " \t*>#-")
		low := strings.ToLower(t)
		switch {
		case strings.HasPrefix(low, "action input:") || strings.HasPrefix(low, "action input**:") || strings.HasPrefix(low, "action_input:"):
			input = t[strings.IndexByte(t, ':')+1:]
			inInput = true
			continue
		case strings.HasPrefix(low, "action:") || strings.HasPrefix(low, "action**:"):
			if name != "" {
				if strings.Trim(t[strings.IndexByte(t, ':')+1:], " \t\r`'\"*") != "" {
					extra++
				}
				inInput = false
				continue
			}
			name = t[strings.IndexByte(t, ':')+1:]
			inInput = false
			continue
		case strings.HasPrefix(low, "thought:") || strings.HasPrefix(low, "thought**:"):
			thought = t[strings.IndexByte(t, ':')+1:]
			inInput = false
			continue
		case strings.HasPrefix(low, "observation:") || strings.HasPrefix(low, "final answer:"):
			inInput = false
			continue
		}
		if inInput {
			input += "\n" + line
		}
	}
	name = strings.Trim(name, " \t\r`'\"*")
	if name == "" || strings.ContainsAny(name, "{[ \t") {
		return actions.Action{}, false, nil
	}
	params := jval{kind: jObj}
	input = strings.TrimSpace(strings.Trim(strings.TrimSpace(input), "`"))
	input = strings.TrimPrefix(input, "json")
	input = strings.TrimSpace(input)
	if strings.IndexByte(input, '{') >= 0 {
		// The input may also be written as a JSON string holding the object.
		if input[0] == '"' {
			if v, ok := parseStrict(input); ok && v.kind == jStr {
				input = v.str
			}
		}
		v, ok := p.paramsFromText(input, r, 0)
		if !ok {
			return actions.Action{}, true, p.refuse(nil, "the Action Input of %s is not a JSON object; reply with one JSON object such as %s", name, p.example)
		}
		params = v
	} else {
		switch strings.ToLower(input) {
		case "", "none", "null", "{}", "n/a", "无", "なし", "нет":
		default:
			return actions.Action{}, true, p.refuse(nil, "the Action Input of %s is not a JSON object; reply with one JSON object such as %s", name, p.example)
		}
	}
	r.addReasoning(thought)
	resolved, perr := p.resolveName(name)
	if perr != nil {
		return actions.Action{}, true, perr
	}
	act, perr := p.build(resolved, params.obj, nil, r)
	if perr == nil {
		r.ignored += extra
	}
	return act, true, perr
}
