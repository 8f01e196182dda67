package parse

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jkind is the kind of a decoded JSON value.
type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNum
	jStr
	jObj
	jArr
)

// jval is a decoded JSON value. Numbers keep their literal text so that
// ids longer than a float64 mantissa survive digit for digit; strings
// without escapes share the input's memory.
type jval struct {
	str  string    // string content, number literal, or "true"/"false"
	obj  []jmember // members of an object, or elements of an array (no key)
	kind jkind
	// cut marks a string value that the end of the answer interrupted.
	cut bool
}

// jmember is one key/value pair of an object, in input order.
type jmember struct {
	key string
	val jval
}

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxDepth = 128

// strictParser is a plain RFC 8259 parser over a string.
type strictParser struct {
	s     string
	i     int
	depth int
	sc    *scratch // nil: members are allocated per object
}

// scratch is reusable memory for decoded members: objects collect their
// members on stack and keep them in arena, so that one answer costs no
// allocation per object. Nothing of it may outlive the parse that uses it.
type scratch struct {
	stack []jmember
	arena []jmember
	// repairs counts the syntax repairs of the answer being parsed.
	repairs int
}

// reset drops the references the scratch holds and empties it.
func (sc *scratch) reset() {
	clear(sc.stack)
	clear(sc.arena)
	sc.stack = sc.stack[:0]
	sc.arena = sc.arena[:0]
	sc.repairs = 0
}

// keep moves the members pushed since base into the arena.
func (sc *scratch) keep(base int) []jmember {
	n := len(sc.stack) - base
	start := len(sc.arena)
	sc.arena = append(sc.arena, sc.stack[base:]...)
	sc.stack = sc.stack[:base]
	return sc.arena[start : start+n : start+n]
}

// parseStrict decodes s as exactly one JSON value surrounded by optional
// whitespace. It reports false on any deviation from the grammar.
func parseStrict(s string) (jval, bool) {
	return parseStrictWith(s, nil)
}

// parseStrictWith is parseStrict keeping members in sc, when not nil.
func parseStrictWith(s string, sc *scratch) (jval, bool) {
	p := strictParser{s: s, sc: sc}
	p.ws()
	v, ok := p.value()
	if !ok {
		return jval{}, false
	}
	p.ws()
	return v, p.i == len(p.s)
}

func (p *strictParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *strictParser) value() (jval, bool) {
	if p.i >= len(p.s) {
		return jval{}, false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, ok := p.str()
		return jval{kind: jStr, str: s}, ok
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case strings.HasPrefix(p.s[p.i:], "true"):
		p.i += 4
		return jval{kind: jBool, str: "true"}, true
	case strings.HasPrefix(p.s[p.i:], "false"):
		p.i += 5
		return jval{kind: jBool, str: "false"}, true
	case strings.HasPrefix(p.s[p.i:], "null"):
		p.i += 4
		return jval{kind: jNull}, true
	}
	return jval{}, false
}

func (p *strictParser) object() (jval, bool) {
	p.depth++
	if p.depth > maxDepth {
		return jval{}, false
	}
	defer func() { p.depth-- }()
	p.i++ // {
	p.ws()
	v := jval{kind: jObj}
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return v, true
	}
	base := 0
	if p.sc != nil {
		base = len(p.sc.stack)
		defer func() { p.sc.stack = p.sc.stack[:base] }()
	} else {
		v.obj = make([]jmember, 0, 4)
	}
	for {
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return jval{}, false
		}
		key, ok := p.str()
		if !ok {
			return jval{}, false
		}
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return jval{}, false
		}
		p.i++
		p.ws()
		val, ok := p.value()
		if !ok {
			return jval{}, false
		}
		if p.sc != nil {
			p.sc.stack = append(p.sc.stack, jmember{key: key, val: val})
		} else {
			v.obj = append(v.obj, jmember{key: key, val: val})
		}
		p.ws()
		if p.i >= len(p.s) {
			return jval{}, false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			p.ws()
		case '}':
			p.i++
			if p.sc != nil {
				v.obj = p.sc.keep(base)
			}
			return v, true
		default:
			return jval{}, false
		}
	}
}

func (p *strictParser) array() (jval, bool) {
	p.depth++
	if p.depth > maxDepth {
		return jval{}, false
	}
	defer func() { p.depth-- }()
	p.i++ // [
	p.ws()
	v := jval{kind: jArr}
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return v, true
	}
	base := 0
	if p.sc != nil {
		base = len(p.sc.stack)
		defer func() { p.sc.stack = p.sc.stack[:base] }()
	}
	for {
		el, ok := p.value()
		if !ok {
			return jval{}, false
		}
		if p.sc != nil {
			p.sc.stack = append(p.sc.stack, jmember{val: el})
		} else {
			v.obj = append(v.obj, jmember{val: el})
		}
		p.ws()
		if p.i >= len(p.s) {
			return jval{}, false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			p.ws()
		case ']':
			p.i++
			if p.sc != nil {
				v.obj = p.sc.keep(base)
			}
			return v, true
		default:
			return jval{}, false
		}
	}
}

func (p *strictParser) number() (jval, bool) {
	start := p.i
	s := p.s
	i := p.i
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return jval{}, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return jval{}, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return jval{}, false
		}
	}
	p.i = i
	return jval{kind: jNum, str: s[start:i]}, true
}

// stringPlain marks with '1' the bytes that may appear unescaped inside a
// JSON string: anything but control characters, the quote and the
// backslash.
const stringPlain = "" +
	"00000000000000000000000000000000" +
	"11011111111111111111111111111111" +
	"11111111111111111111111111110111" +
	"11111111111111111111111111111111" +
	"11111111111111111111111111111111" +
	"11111111111111111111111111111111" +
	"11111111111111111111111111111111" +
	"11111111111111111111111111111111"

// str decodes the string starting at the opening quote at p.i.
func (p *strictParser) str() (string, bool) {
	s := p.s
	start := p.i + 1
	i := start
	for i < len(s) && stringPlain[s[i]] == '1' {
		i++
	}
	if i < len(s) && s[i] == '"' {
		p.i = i + 1
		return s[start:i], true
	}
	if i >= len(s) || s[i] < 0x20 {
		return "", false
	}
	// Slow path: the string has escapes.
	var b strings.Builder
	b.Grow(i - start + 16)
	b.WriteString(s[start:i])
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			p.i = i + 1
			return b.String(), true
		case c < 0x20:
			return "", false
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		switch s[i+1] {
		case '"', '\\', '/':
			b.WriteByte(s[i+1])
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(s, i+2)
			if !ok {
				return "", false
			}
			i += 6
			if r >= 0xD800 && r < 0xDC00 {
				if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if r2, ok := hex4(s, i+2); ok && r2 >= 0xDC00 && r2 < 0xE000 {
						r = (r-0xD800)<<10 + (r2 - 0xDC00) + 0x10000
						i += 6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			} else if r >= 0xDC00 && r < 0xE000 {
				r = utf8.RuneError
			}
			b.WriteRune(r)
			continue
		default:
			return "", false
		}
		i += 2
	}
	return "", false
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	n, err := strconv.ParseUint(s[i:i+4], 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(n), true
}

// toAny converts a value to the shape encoding/json produces with
// UseNumber, for schema validation and for parameter types the parser does
// not set directly.
func (v jval) toAny() any {
	switch v.kind {
	case jBool:
		return v.str == "true"
	case jNum:
		return json.Number(v.str)
	case jStr:
		return v.str
	case jObj:
		m := make(map[string]any, len(v.obj))
		for _, mem := range v.obj {
			m[mem.key] = mem.val.toAny()
		}
		return m
	case jArr:
		a := make([]any, len(v.obj))
		for i, el := range v.obj {
			a[i] = el.val.toAny()
		}
		return a
	}
	return nil
}
