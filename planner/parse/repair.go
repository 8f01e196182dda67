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
	if !ok {
		if depth < maxNesting && isEscapedJSON(cand) {
			if un, uok := unescapeJSONText(cand); uok {
				act, perr := p.parseText(un, r, depth+1)
				return act, perr == nil || perr.named, perr
			}
		}
		v, ok = p.repair(cand, ext, r)
		if !ok {
			return actions.Action{}, false, p.noAction()
		}
		if ext.cut {
			r.truncated = true
			applyCut(&v, ext, r)
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

// applyCut marks or drops what the end of the answer interrupted: the
// innermost last member at the depth where the text ended.
func applyCut(v *jval, ext extent, r *run) {
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
		last := &cur.obj[len(cur.obj)-1]
		if ext.dropLast {
			if last.val.kind != jNull {
				r.note("%q was cut off by truncation and dropped", last.key)
			}
			cur.obj = cur.obj[:len(cur.obj)-1]
		} else if ext.cutString && last.val.kind == jStr {
			last.val.cut = true
		}
	case cur.kind == jArr && len(cur.obj) > 0:
		if ext.dropLast || ext.cutString {
			cur.obj = cur.obj[:len(cur.obj)-1]
		}
	}
}

// looksLikeAction reports whether a further object of the answer names an
// action, to count what was ignored.
func (p *Parser) looksLikeAction(cand string, ext extent, r *run) bool {
	v, ok := parseStrict(cand)
	if !ok {
		v, ok = p.repair(cand, ext, r)
	}
	if !ok || v.kind != jObj {
		return false
	}
	for _, m := range v.obj {
		switch keyRole(canon(m.key)) {
		case roleName, roleFunction, roleCalls:
			return true
		}
		if _, ok := p.byCanon[canon(m.key)]; ok {
			return true
		}
	}
	return false
}

// isEscapedJSON reports an object written with escaped quotes, as when a
// JSON document was pasted into a string: {\"action\": ...}.
func isEscapedJSON(s string) bool {
	i := 1
	for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r') {
		i++
	}
	return i+1 < len(s) && s[i] == '\\' && s[i+1] == '"'
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
