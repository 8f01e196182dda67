package parse

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/airi-go/airi/actions"
)

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
func (p *Parser) build(name string, wrapped, flat []jmember, r *run) (actions.Action, *Error) {
	info := p.infos[name]
	var buf [4]slot
	var slots []slot
	if len(info.fields) <= len(buf) {
		slots = buf[:len(info.fields)]
	} else {
		slots = make([]slot, len(info.fields))
	}
	for g, group := range [2][]jmember{wrapped, flat} {
		for _, m := range group {
			if g == 1 && !info.flatParam(m.key) {
				continue
			}
			idx, unit, prio := info.lookupKey(m.key)
			if m.val.cut {
				if idx < 0 && roleOf(m.key) == roleReasoning {
					// Reasoning the end of the answer cut off harms nothing.
					continue
				}
				return actions.Action{}, p.cutOff(info, idx, m.key)
			}
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
			if slots[idx].set {
				r.note("key %q dropped: %q is already given", slots[idx].key, f.Name)
			}
			s, perr := p.coerce(info, f, m.val, unit, r)
			if perr != nil {
				return actions.Action{}, perr
			}
			if s.kind == jStr && isPlaceholder(s.str, info.isID[idx]) {
				return actions.Action{}, placeholderError(info, f.Name, s.str)
			}
			s.set, s.prio, s.key = true, prio, m.key
			slots[idx] = s
		}
	}
	for i, f := range info.fields {
		if f.Required && !slots[i].set {
			if r.truncated {
				return actions.Action{}, &Error{named: true, Reason: fmt.Sprintf("the answer was cut off before %q of %s; reply again with the whole action, shorter if needed: %s", f.Name, name, info.example)}
			}
			return actions.Action{}, &Error{named: true, Reason: fmt.Sprintf("%s needs %q (%s); reply with %s", name, f.Name, f.Type, info.example)}
		}
	}
	// Check against the action's schema before anything reaches a handler.
	if info.check.exact {
		for i := range info.fields {
			if !slots[i].set {
				continue
			}
			if msg, ok := info.check.fields[i].check(&slots[i]); !ok {
				return actions.Action{}, &Error{named: true, Reason: fmt.Sprintf("%s.%s %s; reply with %s", name, info.fields[i].Name, msg, info.example)}
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
			return actions.Action{}, &Error{named: true, Reason: fmt.Sprintf("%s: %s; reply with %s", name, schemaProblem(name, err), info.example)}
		}
	}
	params, err := info.fill(slots)
	if err != nil {
		return actions.Action{}, &Error{named: true, Reason: fmt.Sprintf("%s: %v; reply with %s", name, err, info.example)}
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
// flatParam reports whether a key beside the action's name is one of its
// parameters: a key that names no parameter in general, or one that
// usually does not (an "id" beside a tool call's name) when the action
// has a parameter of exactly that name (forget's "id").
func (info *actionInfo) flatParam(key string) bool {
	switch roleOf(key) {
	case roleParam:
		return true
	case roleIgnore:
		for _, f := range info.fields {
			if f.Name == key {
				return true
			}
		}
	}
	return false
}

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

// schemaProblem is the registry's refusal without the action's name,
// which the reason already starts with.
func schemaProblem(name string, err error) string {
	return strings.TrimPrefix(err.Error(), name+" ")
}

// coerce converts a value to the type the field's schema wants: numbers
// to strings digit for digit, durations to integer milliseconds.
func (p *Parser) coerce(info *actionInfo, f actions.Field, v jval, unit int64, r *run) (slot, *Error) {
	bad := func(want string) (slot, *Error) {
		return slot{}, &Error{named: true, Reason: fmt.Sprintf("%s.%s must be %s, got %s; reply with %s", info.name, f.Name, want, describe(v), info.example)}
	}
	switch f.Type {
	case "string":
		switch v.kind {
		case jStr, jNum:
			return slot{kind: jStr, str: validUTF8(v.str)}, nil
		}
		return bad("a string")
	case "integer":
		if strings.Contains(strings.ToLower(f.Name), "duration") {
			n, capped, ok := durationMS(v, unit)
			if !ok {
				return bad(`a whole number of milliseconds (or a duration such as "30s" or "2m")`)
			}
			if capped {
				r.note("%s.%s of %s is longer than any duration can be; capped to %d ms", info.name, f.Name, describeShort(v), n)
			}
			return slot{kind: jNum, num: n}, nil
		}
		var n int64
		var ok bool
		switch v.kind {
		case jNum:
			n, ok = intLiteral(v.str, unit, false)
		case jStr:
			n, ok = intLiteral(strings.TrimSpace(v.str), unit, false)
		}
		if !ok {
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

// describeShort is describe without the kind, for notes.
func describeShort(v jval) string {
	s := v.str
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	if v.kind == jStr {
		return strconv.Quote(s)
	}
	return s
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

// setterFor finds how to store a field of the parameter struct.
func setterFor(typ reflect.Type, jsonName string) []int {
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		if name == jsonName {
			return f.Index
		}
	}
	return nil
}
