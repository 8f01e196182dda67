package parse

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/airi-go/airi/actions"
)

// actionInfo is what the parser precomputes about one registered action.
type actionInfo struct {
	name    string
	fields  []actions.Field
	typ     reflect.Type
	index   [][]int        // struct field index per field
	byCanon map[string]int // canonical JSON name → field
	aliases map[string]alias
	example string
	check   schemaCheck
	// isID marks the fields that hold ids, per field.
	isID []bool
}

// alias maps another spelling of a key to a field, with the unit its
// numbers are written in (for durations given in seconds or minutes).
type alias struct {
	field int
	unit  int64
}

// fieldAliases lists, per canonical JSON field name, the other keys
// models use for it. They apply only to actions that have the field.
func fieldAliases() map[string][]string {
	return map[string][]string{
		"content":   {"text", "message", "msg", "body", "messagetext", "messagecontent", "contenttext"},
		"channelid": {"channel", "chatid", "chat", "room", "roomid", "conversationid", "targetchannel", "targetchannelid", "groupid"},
		"replyto": {"replytoid", "replytomessageid", "replytomessage", "inreplyto", "replyid", "replymessageid",
			"quote", "quoteid", "replytomsgid"},
		"duration": {"ms", "millis", "milliseconds", "durationms", "durationmillis", "time", "sleepms", "sleep", "wait", "waitms", "delay", "delayms", "timeout"},
	}
}

// unitAliases are duration keys whose plain numbers are not milliseconds.
func unitAliases() map[string]int64 {
	return map[string]int64{
		"seconds": 1000, "secs": 1000, "sec": 1000, "durationseconds": 1000, "durations": 1000, "durationsec": 1000, "durationsecs": 1000, "sleepseconds": 1000,
		"minutes": 60000, "mins": 60000, "durationminutes": 60000, "durationmin": 60000,
	}
}

func newActionInfo(reg *actions.Registry, name string) *actionInfo {
	info := &actionInfo{
		name:    name,
		fields:  reg.Fields(name),
		byCanon: map[string]int{},
		aliases: map[string]alias{},
	}
	if v, err := reg.New(name); err == nil {
		info.typ = reflect.TypeOf(v).Elem()
	}
	var ex strings.Builder
	ex.WriteString(`{"action":"` + name + `"`)
	aliases, units := fieldAliases(), unitAliases()
	for i, f := range info.fields {
		c := canon(f.Name)
		info.byCanon[c] = i
		info.isID = append(info.isID, isIDField(f.Name))
		for _, a := range aliases[c] {
			info.aliases[a] = alias{field: i, unit: 1}
		}
		if strings.Contains(c, "duration") {
			for a, unit := range units {
				info.aliases[a] = alias{field: i, unit: unit}
			}
		}
		if info.typ != nil {
			info.index = append(info.index, setterFor(info.typ, f.Name))
		} else {
			info.index = append(info.index, nil)
		}
		if f.Required {
			fmt.Fprintf(&ex, `,%q:%s`, f.Name, placeholder(f.Type))
		}
	}
	ex.WriteString("}")
	info.example = ex.String()
	info.check = newSchemaCheck(info.fields)
	return info
}

func placeholder(typ string) string {
	switch typ {
	case "string":
		return `"..."`
	case "integer", "number":
		return "0"
	case "boolean":
		return "true"
	}
	return "..."
}

// canon folds a key or action name to lower-case letters and digits, so
// that channel_id, channelID and ChannelId compare equal.
func canon(s string) string {
	simple := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			simple = false
			break
		}
	}
	if simple {
		return s
	}
	var stack [64]byte
	b := stack[:0]
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
				b = append(b, c)
			case c >= 'A' && c <= 'Z':
				b = append(b, c+'a'-'A')
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b = utf8.AppendRune(b, unicode.ToLower(r))
		}
		i += size
	}
	return string(b)
}

// role is what a key of the outer object means.
type role uint8

const (
	roleParam role = iota
	roleName
	roleFunction // "function": a name or a nested tool call
	roleType     // "type": "function" in tool calls, or a name
	roleWrapper
	roleReasoning
	roleCalls
	roleIgnore
)

// roleOf classifies a key as written, skipping the folding for the
// spellings most answers use.
func roleOf(key string) role {
	switch key {
	case "action", "name":
		return roleName
	case "parameters", "arguments":
		return roleWrapper
	case "reasoning", "reason":
		return roleReasoning
	case "channelId", "content", "replyTo", "duration":
		return roleParam
	}
	return keyRole(canon(key))
}

func keyRole(c string) role {
	switch c {
	case "action", "name", "tool", "toolname", "actionname", "functionname", "command", "actiontype":
		return roleName
	case "function", "functioncall":
		return roleFunction
	case "type":
		return roleType
	case "parameters", "params", "arguments", "args", "input", "actioninput", "toolinput", "parameter", "argument", "kwargs", "data", "payload":
		return roleWrapper
	case "reasoning", "reason", "thought", "thoughts", "thinking", "think", "rationale":
		return roleReasoning
	case "toolcalls", "actions", "calls":
		return roleCalls
	case "id", "callid", "toolcallid", "index":
		return roleIgnore
	}
	return roleParam
}

// namePriority orders the keys that can name the action.
func namePriority(c string) int {
	switch c {
	case "action":
		return 5
	case "name":
		return 4
	case "tool", "toolname", "actionname", "functionname":
		return 3
	case "command", "actiontype":
		return 2
	}
	return 1
}

// fromObject normalizes one decoded object into an action. named reports
// that the object named an action, so its error is about that action.
func (p *Parser) fromObject(v jval, r *run, depth int) (actions.Action, bool, *Error) {
	if v.kind == jArr {
		return p.fromList(v.obj, r, depth)
	}
	if v.kind != jObj {
		return actions.Action{}, false, p.noAction()
	}
	var (
		nameVal   *jval
		nameCut   bool
		namePrio  int
		typeVal   *jval
		fnObj     *jval
		calls     *jval
		wrapper   *jval
		nested    *jval
		flatCount int
		// ignored: a key such as "id" that is a parameter of some actions.
		ignored bool
	)
	for i := range v.obj {
		m := &v.obj[i]
		switch roleOf(m.key) {
		case roleName:
			c := canon(m.key)
			if m.val.kind == jObj || m.val.kind == jArr {
				if c == "action" {
					nested = &m.val
				}
				continue
			}
			if m.val.cut && namePrio == 0 {
				nameVal, nameCut = &m.val, true
				continue
			}
			if pr := namePriority(c); pr > namePrio {
				nameVal, namePrio, nameCut = &m.val, pr, m.val.cut
			}
		case roleFunction:
			switch m.val.kind {
			case jObj:
				fnObj = &m.val
			case jStr:
				if namePrio < 2 {
					nameVal, namePrio, nameCut = &m.val, 2, m.val.cut
				}
			}
		case roleType:
			typeVal = &m.val
		case roleWrapper:
			if wrapper == nil {
				wrapper = &m.val
			}
		case roleReasoning:
			if m.val.kind == jStr {
				r.addReasoning(m.val.str)
			} else if m.val.kind != jNull {
				r.addReasoning(rawText(m.val))
			}
		case roleCalls:
			if m.val.kind == jArr {
				calls = &m.val
			}
		case roleParam:
			flatCount++
		case roleIgnore:
			ignored = true
		}
	}
	switch {
	case nameVal != nil && (nameVal.kind == jStr || nameCut):
	case nested != nil:
		return p.fromObject(*nested, r, depth)
	case fnObj != nil:
		return p.fromObject(*fnObj, r, depth)
	case calls != nil:
		return p.fromList(calls.obj, r, depth)
	case typeVal != nil && typeVal.kind == jStr && !isCallType(typeVal.str):
		nameVal = typeVal
	case nameVal == nil && wrapper == nil && flatCount == 1:
		// {"send_message": {...}}: the action's name is the only key.
		for i := range v.obj {
			m := &v.obj[i]
			if roleOf(m.key) != roleParam {
				continue
			}
			if name, ok := p.lookupName(m.key); ok {
				switch m.val.kind {
				case jObj:
					act, perr := p.build(name, m.val.obj, nil, r)
					return act, true, perr
				case jNull, jBool:
					act, perr := p.build(name, nil, nil, r)
					return act, true, perr
				}
			}
		}
		return p.searchNested(v, r, depth)
	default:
		return p.searchNested(v, r, depth)
	}
	if nameCut {
		return actions.Action{}, false, p.refuse(nil, "the answer was cut off inside the action name; reply again with one short, complete JSON object such as %s", p.example)
	}
	if nameVal.kind != jStr {
		return actions.Action{}, false, p.noAction()
	}
	name, perr := p.resolveName(nameVal.str)
	if perr != nil {
		if depth < maxNesting && looksLikeJSONText(nameVal.str) {
			// {"action": "{\"action\":\"continue\"}"}: the whole action
			// encoded as a string in the name's place.
			act, perr := p.parseText(nameVal.str, r, depth+1)
			return act, perr == nil || perr.named, perr
		}
		return actions.Action{}, true, perr
	}
	var params []jmember
	if wrapper != nil {
		switch wrapper.kind {
		case jObj:
			params = wrapper.obj
		case jStr:
			s := strings.TrimSpace(wrapper.str)
			if s != "" {
				w, ok := p.paramsFromText(s, r, depth)
				if !ok {
					return actions.Action{}, true, p.refuse(nil, "the arguments of %s are not a JSON object; reply with %s", name, p.infos[name].example)
				}
				params = w.obj
			}
		case jNull:
		default:
			return actions.Action{}, true, p.refuse(nil, "the parameters of %s must be a JSON object; reply with %s", name, p.infos[name].example)
		}
	}
	if wrapper != nil {
		params = p.unwrapParams(name, params, r, depth)
	}
	var flat []jmember
	if flatCount > 0 || ignored {
		flat = v.obj // build skips the envelope's own keys
	}
	act, perr := p.build(name, params, flat, r)
	return act, true, perr
}

func isCallType(s string) bool {
	switch canon(s) {
	case "function", "toolcall", "tooluse", "functioncall", "action", "tool":
		return true
	}
	return false
}

// fromList takes the first element of a list of actions that is valid;
// the other elements that name an action are counted as ignored.
func (p *Parser) fromList(list []jmember, r *run, depth int) (actions.Action, bool, *Error) {
	var first *Error
	named := false
	for i, el := range list {
		sub := &run{truncated: r.truncated, sc: r.sc, finish: r.finish}
		act, n, perr := p.fromObject(el.val, sub, depth)
		if perr == nil {
			r.absorb(sub)
			for j, other := range list {
				if j != i && p.namesAction(other.val) {
					r.ignored++
				}
			}
			return act, true, nil
		}
		if first == nil || (n && !named) {
			first, named = perr, n
		}
	}
	if first == nil {
		return actions.Action{}, false, p.noAction()
	}
	return actions.Action{}, named, first
}

// searchNested looks one or two levels down for an object that names an
// action, as in {"response": {"action": ...}}, or for a string field that
// holds one as JSON text. Text inside strings is never searched: an action
// mentioned in a message is content.
func (p *Parser) searchNested(v jval, r *run, depth int) (actions.Action, bool, *Error) {
	if depth < maxNesting {
		for i, m := range v.obj {
			if m.val.kind == jObj || m.val.kind == jArr {
				sub := &run{truncated: r.truncated, sc: r.sc, finish: r.finish}
				act, named, perr := p.fromObject(m.val, sub, depth+1)
				if perr == nil {
					r.absorb(sub)
					for _, other := range v.obj[i+1:] {
						if p.namesAction(other.val) {
							r.ignored++
						}
					}
					return act, true, nil
				}
				if named {
					return act, true, perr
				}
			}
		}
		// {"response": "{\"action\": ...}"}: the action encoded as a
		// string in a field. Only a string that is JSON as a whole counts;
		// an action mentioned inside text is content.
		for _, m := range v.obj {
			if m.val.kind != jStr || !looksLikeJSONText(m.val.str) {
				continue
			}
			sub := &run{truncated: r.truncated, sc: r.sc, finish: r.finish}
			act, perr := p.parseText(m.val.str, sub, depth+1)
			if perr == nil {
				r.absorb(sub)
				return act, true, nil
			}
			if perr.named {
				return act, true, perr
			}
		}
	}
	if r.truncated {
		return actions.Action{}, false, p.refuse(nil, "the answer was cut off before the action name; reply again with one short, complete JSON object such as %s", p.example)
	}
	return actions.Action{}, false, &Error{Reason: p.msgNoName}
}

// unwrapParams removes a second wrapper around the parameters,
// {"parameters": {"parameters": {...}}}, also when the inner level repeats
// the action's name. A wrapper key the action has as a parameter of its
// own is left alone.
func (p *Parser) unwrapParams(name string, params []jmember, r *run, depth int) []jmember {
	info := p.infos[name]
	for range maxNesting {
		var inner *jval
		for i := range params {
			m := &params[i]
			if idx, _, _ := info.lookupKey(m.key); idx >= 0 {
				return params
			}
			switch roleOf(m.key) {
			case roleWrapper:
				if inner != nil || (m.val.kind != jObj && m.val.kind != jStr) {
					return params
				}
				inner = &m.val
			case roleName, roleReasoning, roleIgnore, roleType:
			default:
				return params
			}
		}
		if inner == nil {
			return params
		}
		if inner.kind == jStr {
			w, ok := p.paramsFromText(strings.TrimSpace(inner.str), r, depth)
			if !ok {
				return params
			}
			inner = &w
		}
		for _, m := range params {
			if roleOf(m.key) == roleReasoning && m.val.kind == jStr {
				r.addReasoning(m.val.str)
			}
		}
		r.note("parameters wrapped twice read as one")
		params = inner.obj
	}
	return params
}

// paramsFromText decodes arguments given as a JSON string.
func (p *Parser) paramsFromText(s string, r *run, depth int) (jval, bool) {
	if depth >= maxNesting {
		return jval{}, false
	}
	k := strings.IndexByte(s, '{')
	if k < 0 {
		return jval{}, false
	}
	ext := scanExtent(s, k)
	cand := s[k:ext.end]
	v, ok := jval{}, false
	if !ext.cut {
		v, ok = parseStrict(cand)
	}
	if !ok && ext.cutString {
		if fixed, fok := closeQuote(cand, ext); fok {
			if fext := scanExtent(fixed, 0); !fext.cut && fext.end == len(fixed) {
				r.note("missing closing quote added")
				cand, ext = fixed, fext
				v, ok = parseStrict(cand)
			}
		}
	}
	if !ok {
		if isEscapedJSON(cand) {
			if un, uok := unescapeJSONText(cand); uok {
				return p.paramsFromText(un, r, depth+1)
			}
		}
		ext = r.settle(ext)
		if v, ok = p.repair(cand, ext, r); !ok {
			return jval{}, false
		}
		if ext.cut {
			r.endCut(&v, ext)
		}
	}
	return v, v.kind == jObj
}

// lookupName finds the registered action a name means: any casing or
// separator (sendMessage, SEND_MESSAGE, list-channels), a "functions."
// prefix, or the leading whole words of exactly one action (read_unread).
func (p *Parser) lookupName(raw string) (string, bool) {
	if _, ok := p.infos[raw]; ok {
		return raw, true
	}
	s := strings.TrimSpace(raw)
	s = strings.TrimSuffix(s, "()")
	if i := strings.LastIndexByte(s, '.'); i >= 0 && i+1 < len(s) {
		s = s[i+1:]
	}
	name := p.byCanon[canon(s)]
	return name, name != ""
}

func (p *Parser) resolveName(raw string) (string, *Error) {
	if name, ok := p.lookupName(raw); ok {
		return name, nil
	}
	if strings.TrimSpace(raw) == "" {
		return "", &Error{named: true, Reason: fmt.Sprintf("the action name is empty; use one of %s, for example %s", p.known, p.example)}
	}
	return "", &Error{named: true, err: actions.ErrUnknownAction,
		Reason: fmt.Sprintf("unknown action %q: known actions are %s; reply with one of them, for example %s", raw, p.known, p.example)}
}
