package parse

import (
	"strings"
	"sync"
	"unsafe"

	"github.com/kaptinlin/jsonrepair"

	"github.com/airi-go/airi/actions"
)

// fromCandidate decodes one object of the answer, strictly if it can and
// repaired otherwise. named reports that it named an action, so its error
// is about that action.
func (p *Parser) fromCandidate(cand string, ext extent, r *run, depth int) (actions.Action, bool, *Error) {
	var v jval
	ok := false
	if !ext.cut && !sameString(cand, r.notStrict) {
		v, ok = parseStrictWith(cand, r.sc)
	}
	if !ok && ext.cutString {
		if fixed, fok := closeQuote(cand, ext); fok {
			if fext := scanExtent(fixed, 0); !fext.cut && fext.end == len(fixed) {
				r.note("missing closing quote added")
				cand, ext = fixed, fext
				v, ok = parseStrictWith(cand, r.sc)
			}
		}
	}
	if !ok {
		if depth < maxNesting && isEscapedJSON(cand) {
			if un, uok := unescapeJSONText(cand); uok {
				act, perr := p.parseText(un, r, depth+1)
				return act, perr == nil || perr.named, perr
			}
		}
		ext = r.settle(ext)
		v, ok = p.repair(cand, ext, r)
		if !ok {
			return actions.Action{}, false, p.noAction()
		}
		if ext.cut {
			r.endCut(&v, ext)
		}
	}
	return p.fromObject(v, r, depth)
}

// nextStructuralBrace returns the index of the first '{' in text[from:to]
// that is outside double-quoted strings, or to.
func nextStructuralBrace(text string, from, to int) int {
	for i := from; i < to; i++ {
		switch text[i] {
		case '{':
			return i
		case '\\':
			i++
		case '"':
			end, ok := scanString(text, i+1, '"')
			if !ok || end > to {
				return to
			}
			i = end - 1
		}
	}
	return to
}

// sameString reports whether a and b are the same bytes in memory.
func sameString(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

// repair runs the syntax repair on a candidate that failed the strict
// parse and decodes the result. Our own steps come first (quotes, closing
// what truncation left open) because the repair library can damage
// strings with escapes; it runs only on what they leave broken.
func (p *Parser) repair(cand string, ext extent, r *run) (jval, bool) {
	if ext.quotes {
		cand = requote(cand)
		if !ext.cut {
			if v, ok := parseStrict(cand); ok {
				return v, true
			}
		}
	}
	if ext.cut && !ext.dropLast {
		if v, ok := parseStrict(complete(cand, ext)); ok {
			return v, true
		}
	}
	escaped := false
	if !ext.cut {
		if fixed, ok := escapeInnerQuotes(cand); ok {
			if v, ok := parseStrict(fixed); ok {
				r.note("unescaped quotes inside a string read as part of it")
				return v, true
			}
			// Other damage remains (a trailing comma): the repair goes on
			// from the escaped text.
			cand, escaped = fixed, true
		}
	}
	v, ok := p.repairSyntax(cand, r)
	if ok && escaped {
		r.note("unescaped quotes inside a string read as part of it")
	}
	return v, ok
}

// repairSyntax runs the syntax repair library on a candidate, within the
// answer's repair budget.
func (p *Parser) repairSyntax(cand string, r *run) (jval, bool) {
	// The repair library takes time that grows faster than its input, so
	// long texts and answers that need many repairs are refused instead.
	if len(cand) > maxRepairLen || !r.spendRepair() {
		return jval{}, false
	}
	// The repair library mangles some escapes (a backslash before a
	// letter, an escaped quote after an unquoted key), so well-formed
	// string literals go through it as opaque placeholders.
	if shielded, originals, whole := shieldStrings(cand); len(originals) > 0 {
		if fixed, ok := p.repairShape(shielded, whole); ok {
			if restored, ok := unshieldStrings(fixed, originals); ok {
				if v, ok := parseStrict(restored); ok {
					return v, true
				}
			}
		}
	}
	fixed, err := jsonrepair.Repair(cand)
	if err != nil {
		return jval{}, false
	}
	return parseStrict(fixed)
}

// maxRepairLen is the longest candidate the repair library is given.
const maxRepairLen = 8 << 10

// maxRepairs bounds the repairs one answer may ask for.
const maxRepairs = 4

// spendRepair counts one repair against the answer's budget.
func (r *run) spendRepair() bool {
	if r.sc == nil {
		return true
	}
	r.sc.repairs++
	return r.sc.repairs <= maxRepairs
}

// repairShape repairs a shielded candidate. When every string of it was
// shielded, the text is the answer's shape alone (keys, punctuation,
// bare words), which recurs from answer to answer, so the repair is
// remembered.
func (p *Parser) repairShape(shape string, whole bool) (string, bool) {
	cacheable := whole && len(shape) <= maxShapeLen
	if cacheable {
		if fixed, ok := p.shapes.get(shape); ok {
			return fixed, fixed != ""
		}
	}
	fixed, err := jsonrepair.Repair(shape)
	if err != nil {
		fixed = ""
	}
	if cacheable {
		p.shapes.put(shape, fixed)
	}
	return fixed, fixed != ""
}

// maxShapeLen bounds the shapes remembered by repairShape.
const maxShapeLen = 512

// shapeCacheSize bounds how many repaired shapes a parser remembers.
const shapeCacheSize = 4096

// shapeCache remembers repaired shapes ("" for a shape the repair
// refused). When full it starts over, which keeps it bounded without
// bookkeeping per entry.
type shapeCache struct {
	mu sync.RWMutex
	m  map[string]string
}

func (c *shapeCache) get(k string) (string, bool) {
	c.mu.RLock()
	v, ok := c.m[k]
	c.mu.RUnlock()
	return v, ok
}

func (c *shapeCache) put(k, v string) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= shapeCacheSize {
		c.m = make(map[string]string, 64)
	}
	c.m[k] = v
	c.mu.Unlock()
}

// complete closes a cut candidate: the open string, then the open
// containers, dropping a dangling comma or half an escape.
func complete(cand string, ext extent) string {
	var b strings.Builder
	b.Grow(len(cand) + len(ext.closers) + 2)
	if ext.cutString {
		// Drop an escape the cut split in two.
		if k := strings.LastIndexByte(cand, '\\'); k >= 0 && len(cand)-k < 6 {
			tail := cand[k:]
			if len(tail) == 1 || (tail[1] == 'u' && len(tail) < 6) {
				cand = cand[:k]
			}
		}
		b.WriteString(cand)
		b.WriteByte('"')
	} else {
		cand = strings.TrimRight(cand, " \t\r\n")
		cand = strings.TrimSuffix(cand, ",")
		b.WriteString(cand)
	}
	b.WriteString(ext.closers)
	return b.String()
}

// applyCut marks what the end of the answer interrupted: the innermost
// last member at the depth where the text ended, whether the text ended
// inside its key, before its value or inside its value. Such a member is
// never used as it stands (a cut parameter refuses the action); a cut
// element of a list is dropped, so that a complete action before it can
// still be taken.
func applyCut(v *jval, ext extent) {
	if !ext.dropLast && !ext.cutString {
		return
	}
	cur := v
	for d := 1; d < ext.depth; d++ {
		switch {
		case (cur.kind == jObj || cur.kind == jArr) && len(cur.obj) > 0:
			cur = &cur.obj[len(cur.obj)-1].val
		default:
			return
		}
	}
	switch {
	case cur.kind == jObj && len(cur.obj) > 0:
		cur.obj[len(cur.obj)-1].val.cut = true
	case cur.kind == jArr && len(cur.obj) > 0:
		cur.obj = cur.obj[:len(cur.obj)-1]
	}
}

// looksLikeAction reports whether a further object of the answer names an
// action, to count what was ignored. When the answer's repair budget is
// spent, a broken object counts if it has an "action" key.
func (p *Parser) looksLikeAction(cand string, ext extent, r *run) bool {
	v, ok := jval{}, false
	if !ext.cut {
		v, ok = parseStrict(cand)
	}
	if !ok {
		if len(cand) > maxRepairLen || (r.sc != nil && r.sc.repairs >= maxRepairs) {
			return hasActionKey(cand)
		}
		v, ok = p.repair(cand, ext, &run{sc: r.sc})
	}
	return ok && p.namesAction(v)
}

// namesAction reports whether a value is an action or a list holding one:
// an object whose "action" key is a name, whose name key names a known
// action, that holds a tool call, or that is keyed by an action's name.
func (p *Parser) namesAction(v jval) bool {
	if v.kind == jArr {
		for _, el := range v.obj {
			if p.namesAction(el.val) {
				return true
			}
		}
		return false
	}
	if v.kind != jObj {
		return false
	}
	for _, m := range v.obj {
		c := canon(m.key)
		switch keyRole(c) {
		case roleName:
			switch {
			case m.val.kind == jObj:
				return c == "action"
			case m.val.kind != jStr:
			case c == "action" || c == "actionname" || c == "toolname" || c == "functionname":
				return true
			default:
				if _, ok := p.lookupName(m.val.str); ok {
					return true
				}
			}
		case roleFunction:
			if m.val.kind == jObj || m.val.kind == jStr {
				return true
			}
		case roleCalls:
			if m.val.kind == jArr && p.namesAction(m.val) {
				return true
			}
		case roleType:
			if m.val.kind == jStr {
				if _, ok := p.lookupName(m.val.str); ok {
					return true
				}
			}
		}
		if _, ok := p.byCanon[c]; ok && (m.val.kind == jObj || m.val.kind == jNull || m.val.kind == jBool) {
			return true
		}
	}
	return false
}

// hasActionKey reports an "action" key in text that could not be decoded.
func hasActionKey(s string) bool {
	for k := indexFold(s, "action"); k >= 0; {
		i := k + len("action")
		for i < len(s) && (s[i] == '"' || s[i] == '\'' || s[i] == ' ' || s[i] == '\\') {
			i++
		}
		if i < len(s) && s[i] == ':' {
			return true
		}
		next := indexFold(s[i:], "action")
		if next < 0 {
			return false
		}
		k = i + next
	}
	return false
}

// isEscapedJSON reports an object written with escaped quotes, as when a
// JSON document was pasted into a string: {\"action\": ...}, also
// escaped twice ({\\\"action\\\": ...}) and with escaped line breaks
// between the members ({\n  \"action\": ...}).
func isEscapedJSON(s string) bool {
	i := 1
	for i < len(s) {
		switch s[i] {
		case ' ', '\n', '\t', '\r':
			i++
			continue
		case '\\':
			if i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 't' || s[i+1] == 'r') {
				i += 2
				continue
			}
		}
		break
	}
	j := i
	for j < len(s) && s[j] == '\\' {
		j++
	}
	return j > i && j < len(s) && s[j] == '"'
}

// unescapeJSONText removes one level of JSON string escaping.
func unescapeJSONText(s string) (string, bool) {
	if v, ok := parseStrict(`"` + s + `"`); ok && v.kind == jStr {
		return v.str, true
	}
	// Raw line breaks or stray quotes make it an invalid string literal;
	// undo the common escapes by hand.
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '"', '\\', '/':
				b.WriteByte(s[i+1])
				i++
				continue
			case 'n':
				b.WriteByte('\n')
				i++
				continue
			case 't':
				b.WriteByte('\t')
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String(), true
}
