package planner

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
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
	info.check = newSchemaCheck(reg, name, info.fields)
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
	case "parameters", "params", "arguments", "args", "input", "actioninput", "toolinput", "parameter", "argument", "kwargs":
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
func (p *Parser) fromObject(v jval, r *run, depth int) (actions.Action, bool, *ParseError) {
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
		}
	}
	switch {
	case nameVal != nil && nameVal.kind == jStr:
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
					act, perr := p.build(name, m.val.obj, nil, r, depth)
					return act, true, perr
				case jNull, jBool:
					act, perr := p.build(name, nil, nil, r, depth)
					return act, true, perr
				}
			}
		}
		return p.searchNested(v, r, depth)
	default:
		return p.searchNested(v, r, depth)
	}
	if nameVal.kind != jStr {
		return actions.Action{}, false, p.noAction()
	}
	if nameCut {
		return actions.Action{}, false, p.refuse(nil, "the answer was cut off inside the action name; reply again with one short, complete JSON object such as %s", p.example)
	}
	name, perr := p.resolveName(nameVal.str)
	if perr != nil {
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
	var flat []jmember
	if flatCount > 0 {
		flat = v.obj // build skips the envelope's own keys
	}
	act, perr := p.build(name, params, flat, r, depth)
	return act, true, perr
}

func isCallType(s string) bool {
	switch canon(s) {
	case "function", "toolcall", "tooluse", "functioncall", "action", "tool":
		return true
	}
	return false
}

// fromList takes the first element of a list of actions that is valid.
func (p *Parser) fromList(list []jmember, r *run, depth int) (actions.Action, bool, *ParseError) {
	var first *ParseError
	named := false
	for i, el := range list {
		sub := &run{truncated: r.truncated}
		act, n, perr := p.fromObject(el.val, sub, depth)
		if perr == nil {
			r.reasoning = append(r.reasoning, sub.reasoning...)
			r.notes = append(r.notes, sub.notes...)
			if rest := len(list) - 1; rest == 1 {
				r.note("1 more action ignored")
			} else if rest > 1 {
				r.note("%d more actions ignored", rest)
			}
			_ = i
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
// action, as in {"response": {"action": ...}}. Strings are never searched:
// text inside them is content.
func (p *Parser) searchNested(v jval, r *run, depth int) (actions.Action, bool, *ParseError) {
	if depth < maxNesting {
		for _, m := range v.obj {
			if m.val.kind == jObj || m.val.kind == jArr {
				sub := &run{truncated: r.truncated}
				act, named, perr := p.fromObject(m.val, sub, depth+1)
				if perr == nil {
					r.reasoning = append(r.reasoning, sub.reasoning...)
					r.notes = append(r.notes, sub.notes...)
					return act, true, nil
				}
				if named {
					return act, true, perr
				}
			}
		}
	}
	if r.truncated {
		return actions.Action{}, false, p.refuse(nil, "the answer was cut off before the action name; reply again with one short, complete JSON object such as %s", p.example)
	}
	return actions.Action{}, false, &ParseError{Reason: p.msgNoName}
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
	if !ok {
		if isEscapedJSON(cand) {
			if un, uok := unescapeJSONText(cand); uok {
				return p.paramsFromText(un, r, depth+1)
			}
		}
		if v, ok = p.repair(cand, ext); !ok {
			return jval{}, false
		}
		if ext.cut {
			r.truncated = true
			applyCut(&v, ext)
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

func (p *Parser) resolveName(raw string) (string, *ParseError) {
	if name, ok := p.lookupName(raw); ok {
		return name, nil
	}
	if strings.TrimSpace(raw) == "" {
		return "", &ParseError{named: true, Reason: fmt.Sprintf("the action name is empty; use one of %s, for example %s", p.known, p.example)}
	}
	return "", &ParseError{named: true, err: actions.ErrUnknownAction,
		Reason: fmt.Sprintf("unknown action %q: known actions are %s; reply with one of them, for example %s", raw, p.known, p.example)}
}

// slot is one parameter being filled.
type slot struct {
	set  bool
	prio int
	key  string
	str  string
	num  int64
	val  any // for types set through encoding/json
	kind jkind
}

// build checks and converts the parameters of a named action. Members of
// the wrapper object come before flat members; an exact key beats another
// spelling of it.
func (p *Parser) build(name string, wrapped, flat []jmember, r *run, _ int) (actions.Action, *ParseError) {
	info := p.infos[name]
	var buf [4]slot
	slots := buf[:0]
	if len(info.fields) <= len(buf) {
		slots = buf[:len(info.fields)]
	} else {
		slots = make([]slot, len(info.fields))
	}
	for g, group := range [2][]jmember{wrapped, flat} {
		for _, m := range group {
			if g == 1 && roleOf(m.key) != roleParam {
				continue
			}
			idx, unit, prio := info.lookupKey(m.key)
			if idx < 0 {
				if m.val.kind != jNull {
					r.note("unknown key %q dropped", m.key)
				}
				continue
			}
			f := info.fields[idx]
			if slots[idx].set && slots[idx].prio >= prio {
				r.note("key %q dropped: %q is already given", m.key, f.Name)
				continue
			}
			if m.val.kind == jNull {
				continue
			}
			if m.val.cut {
				if f.Name == "content" && m.val.kind == jStr {
					r.note("content was cut off by truncation and is kept as far as it goes")
				} else {
					r.cutFields = append(r.cutFields, f.Name)
					r.note("%s was cut off by truncation and dropped", f.Name)
					continue
				}
			}
			if slots[idx].set {
				r.note("key %q dropped: %q is already given", slots[idx].key, f.Name)
			}
			s, perr := p.coerce(info, f, m.val, unit)
			if perr != nil {
				return actions.Action{}, perr
			}
			s.set, s.prio, s.key = true, prio, m.key
			slots[idx] = s
		}
	}
	for i, f := range info.fields {
		if f.Required && !slots[i].set {
			for _, c := range r.cutFields {
				if c == f.Name {
					return actions.Action{}, &ParseError{named: true, Reason: fmt.Sprintf("the answer was cut off inside %q of %s; reply again with the whole action, shorter if needed: %s", f.Name, name, info.example)}
				}
			}
			if r.truncated {
				return actions.Action{}, &ParseError{named: true, Reason: fmt.Sprintf("the answer was cut off before %q of %s; reply again with the whole action, shorter if needed: %s", f.Name, name, info.example)}
			}
			return actions.Action{}, &ParseError{named: true, Reason: fmt.Sprintf("%s needs %q (%s); reply with %s", name, f.Name, f.Type, info.example)}
		}
	}
	// Check against the action's schema before anything reaches a handler.
	if info.check.exact {
		for i := range info.fields {
			if !slots[i].set {
				continue
			}
			if msg, ok := info.check.fields[i].check(&slots[i]); !ok {
				return actions.Action{}, &ParseError{named: true, Reason: fmt.Sprintf("%s.%s %s; reply with %s", name, info.fields[i].Name, msg, info.example)}
			}
		}
	} else {
		m := make(map[string]any, len(slots))
		for i, f := range info.fields {
			if slots[i].set {
				m[f.Name] = slots[i].value()
			}
		}
		if err := p.reg.Validate(name, m); err != nil {
			return actions.Action{}, &ParseError{named: true, Reason: fmt.Sprintf("%s: %s; reply with %s", name, schemaProblem(err), info.example)}
		}
	}
	params, err := info.fill(slots)
	if err != nil {
		return actions.Action{}, &ParseError{named: true, Reason: fmt.Sprintf("%s: %v; reply with %s", name, err, info.example)}
	}
	return actions.Action{Name: name, Params: params}, nil
}

// value returns the slot in the shape encoding/json produces with
// UseNumber.
func (s *slot) value() any {
	switch {
	case s.val != nil:
		return s.val
	case s.kind == jNum:
		return json.Number(strconv.FormatInt(s.num, 10))
	case s.kind == jBool:
		return s.num != 0
	}
	return s.str
}

// lookupKey maps a key to a field: the exact JSON name first, then any
// casing or separator, then a known other spelling.
func (info *actionInfo) lookupKey(key string) (idx int, unit int64, prio int) {
	for i, f := range info.fields {
		if f.Name == key {
			return i, 1, 3
		}
	}
	c := canon(key)
	if i, ok := info.byCanon[c]; ok {
		return i, 1, 2
	}
	if a, ok := info.aliases[c]; ok {
		return a.field, a.unit, 1
	}
	return -1, 0, 0
}

// fill builds the registered parameter struct from checked values.
func (info *actionInfo) fill(slots []slot) (any, error) {
	if info.typ == nil {
		return nil, fmt.Errorf("no parameter type")
	}
	ptr := reflect.New(info.typ)
	st := ptr.Elem()
	for i, f := range info.fields {
		s := &slots[i]
		if !s.set {
			continue
		}
		idx := info.index[i]
		if idx == nil {
			return nil, fmt.Errorf("parameter %q has no field", f.Name)
		}
		fv := st.FieldByIndex(idx)
		if s.val == nil && setDirect(fv, s) {
			continue
		}
		raw, err := json.Marshal(s.value())
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", f.Name, err)
		}
		if err := json.Unmarshal(raw, fv.Addr().Interface()); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return ptr.Interface(), nil
}

// setDirect stores a string or integer without going through
// encoding/json; it reports false for shapes it does not handle.
func setDirect(fv reflect.Value, s *slot) bool {
	t := fv.Type()
	if t.Kind() == reflect.Pointer {
		elem := reflect.New(t.Elem())
		if !setDirect(elem.Elem(), s) {
			return false
		}
		fv.Set(elem)
		return true
	}
	switch {
	case t.Kind() == reflect.String && s.kind == jStr:
		fv.SetString(s.str)
	case t.Kind() == reflect.Int64 && s.kind == jNum, t.Kind() == reflect.Int && s.kind == jNum:
		fv.SetInt(s.num)
	case t.Kind() == reflect.Bool && s.kind == jBool:
		fv.SetBool(s.num != 0)
	default:
		return false
	}
	return true
}

// schemaProblem shortens a validator error to its findings.
func schemaProblem(err error) string {
	msg := err.Error()
	var parts []string
	for _, line := range strings.Split(msg, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "- at ") {
			parts = append(parts, strings.TrimPrefix(line, "- "))
		}
	}
	if len(parts) == 0 {
		return msg
	}
	return "parameters do not match the schema: " + strings.Join(parts, "; ")
}

// coerce converts a value to the type the field's schema wants: numbers
// to strings digit for digit, durations to integer milliseconds.
func (p *Parser) coerce(info *actionInfo, f actions.Field, v jval, unit int64) (slot, *ParseError) {
	bad := func(want string) (slot, *ParseError) {
		return slot{}, &ParseError{named: true, Reason: fmt.Sprintf("%s.%s must be %s, got %s; reply with %s", info.name, f.Name, want, describe(v), info.example)}
	}
	switch f.Type {
	case "string":
		switch v.kind {
		case jStr, jNum:
			return slot{kind: jStr, str: validUTF8(v.str)}, nil
		}
		return bad("a string")
	case "integer":
		isDur := strings.Contains(strings.ToLower(f.Name), "duration")
		var n int64
		var ok bool
		switch v.kind {
		case jNum:
			n, ok = intLiteral(v.str, unit, false)
			if !ok && isDur {
				// A fraction of a millisecond is noise, not an error.
				n, ok = intLiteral(v.str, unit, true)
			}
		case jStr:
			if isDur {
				n, ok = parseDurationMS(v.str, unit)
			} else {
				n, ok = intLiteral(strings.TrimSpace(v.str), unit, false)
			}
		}
		if !ok {
			if isDur {
				return bad(`a whole number of milliseconds (or a duration such as "30s" or "2m")`)
			}
			return bad("an integer")
		}
		return slot{kind: jNum, num: n}, nil
	case "boolean":
		switch {
		case v.kind == jBool:
			return slot{kind: jBool, num: b2i(v.str == "true")}, nil
		case v.kind == jStr && (strings.EqualFold(v.str, "true") || strings.EqualFold(v.str, "false")):
			return slot{kind: jBool, num: b2i(strings.EqualFold(v.str, "true"))}, nil
		}
		return bad("true or false")
	case "number":
		switch v.kind {
		case jNum:
			return slot{val: json.Number(v.str)}, nil
		case jStr:
			if _, err := strconv.ParseFloat(strings.TrimSpace(v.str), 64); err == nil {
				return slot{val: json.Number(strings.TrimSpace(v.str))}, nil
			}
		}
		return bad("a number")
	}
	return slot{val: v.toAny()}, nil
}

// validUTF8 replaces each byte that is not valid UTF-8 with U+FFFD, as
// encoding/json does, so that an action survives a round trip through JSON.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func describe(v jval) string {
	switch v.kind {
	case jStr:
		if len(v.str) > 40 {
			return fmt.Sprintf("the text %q", v.str[:40]+"…")
		}
		return fmt.Sprintf("the text %q", v.str)
	case jNum:
		return "the number " + v.str
	case jBool:
		return v.str
	case jObj:
		return "an object"
	case jArr:
		return "a list"
	}
	return "null"
}

// rawText renders a value back as compact JSON, for reasoning given as an
// object or list.
func rawText(v jval) string {
	b, err := json.Marshal(v.toAny())
	if err != nil {
		return ""
	}
	return string(b)
}

// intLiteral reads a JSON number as an integer in the given unit,
// exactly: 3e4 is 30000 and 1.5 seconds is 1500 milliseconds. A fraction
// left over is rounded when round is set or the unit is not 1, and refused
// otherwise.
func intLiteral(s string, unit int64, round bool) (int64, bool) {
	if s == "" || !isNumber(s) {
		return 0, false
	}
	if !strings.ContainsAny(s, ".eE") {
		n, err := strconv.ParseInt(strings.TrimPrefix(s, "+"), 10, 64)
		if err != nil {
			return 0, false
		}
		if unit != 1 {
			if n > math.MaxInt64/unit || n < math.MinInt64/unit {
				return 0, false
			}
			n *= unit
		}
		return n, true
	}
	if n, exact, ok := fixedPoint(s, unit); ok && (exact || round || unit != 1) {
		return n, true
	} else if ok {
		return 0, false
	}
	f, _, err := big.ParseFloat(s, 10, 128, big.ToNearestEven)
	if err != nil {
		return 0, false
	}
	f.Mul(f, new(big.Float).SetInt64(unit))
	if !f.IsInt() {
		if unit == 1 && !round {
			return 0, false
		}
		// A fraction of a millisecond: round to the nearest.
		f.Add(f, big.NewFloat(0.5))
	}
	n, acc := f.Int64()
	if acc != big.Exact && f.IsInt() {
		return 0, false
	}
	return n, true
}

// fixedPoint computes s × unit for a decimal number s with few digits
// using integer arithmetic, rounding half up; exact reports that no
// fraction was left. ok is false when the number needs big arithmetic.
func fixedPoint(s string, unit int64) (n int64, exact, ok bool) {
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var mant int64
	digits, scale := 0, 0
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		mant = mant*10 + int64(s[i]-'0')
		if mant != 0 {
			digits++
		}
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			mant = mant*10 + int64(s[i]-'0')
			scale++
			if mant != 0 {
				digits++
			}
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 18 || e < -18 {
			return 0, false, false
		}
		scale -= e
	}
	if digits > 15 || scale > 18 || scale < -18 {
		return 0, false, false
	}
	if unit <= 0 || mant > math.MaxInt64/unit {
		return 0, false, false
	}
	mant *= unit
	for ; scale < 0; scale++ {
		if mant > math.MaxInt64/10 {
			return 0, false, false
		}
		mant *= 10
	}
	exact = true
	if scale > 0 {
		div := int64(1)
		for ; scale > 0; scale-- {
			div *= 10
		}
		q, r := mant/div, mant%div
		exact = r == 0
		if 2*r >= div {
			q++
		}
		mant = q
	}
	if neg {
		mant = -mant
	}
	return mant, exact, true
}

// isNumber reports whether s is a decimal number: an optional sign,
// digits with an optional fraction, and an optional exponent.
func isNumber(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// durationUnit maps a unit word (in several languages) to milliseconds.
func durationUnit(word string) (int64, bool) {
	switch word {
	case "ms", "msec", "msecs", "millisecond", "milliseconds", "毫秒", "ミリ秒", "мс":
		return 1, true
	case "s", "sec", "secs", "second", "seconds", "秒", "秒钟", "秒鐘", "с", "сек", "секунд", "секунды", "секунда", "секунду":
		return 1000, true
	case "m", "min", "mins", "minute", "minutes", "分", "分钟", "分鐘", "分間", "мин", "минут", "минуты", "минута", "минуту":
		return 60000, true
	case "h", "hr", "hrs", "hour", "hours", "小时", "小時", "時間", "ч", "час", "часа", "часов":
		return 3600000, true
	}
	return 0, false
}

// parseDurationMS reads a duration written as text: "30000", "3e4",
// "30s", "2m", "1m30s", "1.5 seconds", "30秒" or "2 минуты". A bare
// number is in unit (milliseconds unless the key said otherwise).
func parseDurationMS(s string, unit int64) (int64, bool) {
	s = strings.TrimSpace(strings.ToLower(s))
	if s == "" {
		return 0, false
	}
	if n, ok := intLiteral(s, unit, false); ok {
		return n, true
	}
	if strings.HasPrefix(s, "pt") { // ISO 8601: PT30S, PT2M
		s = s[2:]
	}
	var total int64
	i := 0
	pairs := 0
	for i < len(s) {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) {
			break
		}
		j := i
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
			j++
		}
		if j == i {
			return 0, false
		}
		numText := s[i:j]
		for j < len(s) && s[j] == ' ' {
			j++
		}
		k := j
		for k < len(s) && !(s[k] >= '0' && s[k] <= '9') && s[k] != ' ' {
			k++
		}
		word := s[j:k]
		mult, ok := durationUnit(word)
		if !ok {
			return 0, false
		}
		if !isNumber(numText) {
			return 0, false
		}
		ms, _, ok := fixedPoint(numText, mult)
		if !ok || total > math.MaxInt64-ms {
			return 0, false
		}
		total += ms
		pairs++
		i = k
	}
	return total, pairs > 0
}
