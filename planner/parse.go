package planner

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/kaptinlin/jsonrepair"

	"github.com/airi-go/airi/actions"
)

// Parsed is one action recovered from a model answer.
type Parsed struct {
	// Action is validated against its schema; Params is a pointer to the
	// registered parameter struct.
	Action actions.Action
	// Reasoning is the think block and any "reasoning"/"reason" text, kept
	// for the trace and never passed to handlers.
	Reasoning string
	// Notes says what was repaired or dropped on the way, for example
	// "2 more actions ignored" or "answer was truncated".
	Notes []string
}

// ParseError is a refusal: the answer holds no action that can be run.
// Error() is written for the model, which reads it on the next tick: what
// was wrong and what a correct answer looks like.
type ParseError struct {
	// Reason is the explanation for the model.
	Reason string
	// err is a sentinel callers may match (actions.ErrUnknownAction).
	err error
	// named reports that the answer named an action, so the refusal is
	// about that action rather than about finding one.
	named bool
}

// Error returns the explanation for the model.
func (e *ParseError) Error() string { return e.Reason }

// Unwrap returns the sentinel behind the refusal, if any.
func (e *ParseError) Unwrap() error { return e.err }

// Parser turns raw model answers into validated actions. It is built once
// from a registry and is safe for concurrent use.
type Parser struct {
	reg   *actions.Registry
	infos map[string]*actionInfo
	// byCanon maps the canonical spelling of each name, and of the
	// leading whole words that belong to one action only, to the name;
	// ambiguous prefixes map to "".
	byCanon map[string]string
	known   string // "break, continue, ..." for errors
	example string // an example answer for errors
	// Refusals that do not depend on the answer, written once.
	msgNoAction, msgNoName string
	// scratch holds *scratch values reused across parses.
	scratch sync.Pool
	// shapes remembers repairs of answer shapes.
	shapes shapeCache
}

// NewParser returns a parser for the actions of reg.
func NewParser(reg *actions.Registry) *Parser {
	p := &Parser{
		reg:     reg,
		infos:   map[string]*actionInfo{},
		byCanon: map[string]string{},
	}
	p.scratch.New = func() any {
		return &scratch{stack: make([]jmember, 0, 16), arena: make([]jmember, 0, 32)}
	}
	names := reg.Names()
	prefixes := map[string]string{}
	for _, name := range names {
		p.infos[name] = newActionInfo(reg, name)
		p.byCanon[canon(name)] = name
		words := strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
		prefix := ""
		for _, w := range words[:max(len(words)-1, 0)] {
			prefix += canon(w)
			if len(prefix) < 4 {
				continue
			}
			if other, seen := prefixes[prefix]; seen && other != name {
				prefixes[prefix] = ""
			} else {
				prefixes[prefix] = name
			}
		}
	}
	for prefix, name := range prefixes {
		if _, full := p.byCanon[prefix]; !full {
			p.byCanon[prefix] = name
		}
	}
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	p.known = strings.Join(sorted, ", ")
	if len(names) > 0 {
		p.example = p.infos[names[0]].example
	}
	p.msgNoAction = fmt.Sprintf("no action found in the answer; reply with exactly one JSON object naming an action, such as %s (known actions: %s)", p.example, p.known)
	p.msgNoName = fmt.Sprintf("the JSON object names no action; add an \"action\" key with one of %s, for example %s", p.known, p.example)
	return p
}

// run collects what one Parse call learns besides the action.
type run struct {
	notes     []string
	reasoning []string
	truncated bool
	cutFields []string
	// notStrict is a text already known to fail the strict parse.
	notStrict string
	// sc is the parse's scratch memory for decoded members.
	sc *scratch
}

func (r *run) note(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

func (r *run) addReasoning(s string) {
	if s = strings.TrimSpace(s); s != "" {
		r.reasoning = append(r.reasoning, s)
	}
}

// maxNesting bounds how often an answer may hold JSON inside a JSON string.
const maxNesting = 3

// maxCandidates bounds the objects tried in one answer.
const maxCandidates = 32

// Parse recovers one action from raw, the text of a model answer. The
// error, on refusal, is a *ParseError.
func (p *Parser) Parse(raw string) (res Parsed, err error) {
	defer func() {
		if v := recover(); v != nil {
			res = Parsed{}
			err = &ParseError{Reason: fmt.Sprintf("the answer could not be read as an action (%v); reply with exactly one JSON object such as %s", v, p.example)}
		}
	}()
	sc := p.scratch.Get().(*scratch)
	defer func() {
		sc.reset()
		p.scratch.Put(sc)
	}()
	r := &run{sc: sc}
	act, perr := p.parseText(raw, r, 0)
	if perr != nil {
		return Parsed{}, perr
	}
	if r.truncated {
		r.notes = append([]string{"answer was truncated"}, r.notes...)
	}
	return Parsed{Action: act, Reasoning: strings.Join(r.reasoning, "\n\n"), Notes: r.notes}, nil
}

func (p *Parser) parseText(text string, r *run, depth int) (actions.Action, *ParseError) {
	text = strings.TrimPrefix(text, "\uFEFF")
	text = strings.TrimSpace(text)
	if text == "" {
		return actions.Action{}, p.refuse(nil, "the answer was empty; reply with exactly one JSON object such as %s", p.example)
	}
	// Fast path: the whole answer is one well-formed object.
	if text[0] == '{' && text[len(text)-1] == '}' {
		if v, ok := parseStrictWith(text, r.sc); ok {
			act, _, perr := p.fromObject(v, r, depth)
			return act, perr
		}
		r.notStrict = text
	}
	rest, open := p.splitThink(text, r)
	rest = strings.TrimSpace(rest)
	if rest == "" {
		if open {
			return actions.Action{}, p.refuse(nil, "the answer ended inside its <think> block before any action; keep the thinking short, close it with </think> and then reply with one JSON object such as %s", p.example)
		}
		return actions.Action{}, p.refuse(nil, "the answer holds only thinking and no action; after </think> reply with one JSON object such as %s", p.example)
	}
	// A JSON string whose content is the action.
	if rest[0] == '"' && depth < maxNesting {
		if v, ok := parseStrict(rest); ok && v.kind == jStr {
			return p.parseText(v.str, r, depth+1)
		}
	}
	if rest[0] != '{' && rest[0] != '[' {
		if act, ok, perr := p.react(rest, r, depth); ok {
			if perr == nil {
				return act, nil
			}
			// A ReAct line that names nothing usable may sit next to a
			// proper JSON action.
			if act, serr := p.scan(rest, open, r, depth); serr == nil {
				return act, nil
			}
			return actions.Action{}, perr
		}
	}
	return p.scan(rest, open, r, depth)
}

// splitThink removes a leading <think> block (or a closing tag whose
// opening the provider stripped) and keeps its text as reasoning. open
// reports a block that never closed; rest is then its content.
func (p *Parser) splitThink(text string, r *run) (rest string, open bool) {
	if text[0] == '<' {
		for _, t := range thinkTags() {
			tag, closing := t[0], t[1]
			if len(text) < len(tag) || !strings.EqualFold(text[:len(tag)], tag) {
				continue
			}
			body := text[len(tag):]
			end := indexFold(body, closing)
			if end < 0 {
				return body, true
			}
			r.addReasoning(body[:end])
			rest = body[end+len(closing):]
			// Some models write several blocks in a row.
			trimmed := strings.TrimSpace(rest)
			if trimmed != "" && trimmed[0] == '<' {
				return p.splitThink(trimmed, r)
			}
			return rest, false
		}
		return text, false
	}
	switch text[0] {
	case '{', '[', '`', '"':
		return text, false
	}
	if !strings.Contains(text, "</") {
		return text, false
	}
	for _, t := range thinkTags() {
		closing := t[1]
		end := indexFold(text, closing)
		if end < 0 {
			continue
		}
		// Only a closing tag before any object counts; one after it is
		// part of the answer's text.
		if brace := strings.IndexByte(text, '{'); brace >= 0 && brace < end && !strings.Contains(text[:brace], "\n") {
			continue
		}
		r.addReasoning(text[:end])
		return text[end+len(closing):], false
	}
	return text, false
}

// thinkTags are the tags models wrap their thinking in, opening and
// closing.
func thinkTags() [4][2]string {
	return [4][2]string{
		{"<think>", "</think>"},
		{"<thinking>", "</thinking>"},
		{"<reasoning>", "</reasoning>"},
		{"<thought>", "</thought>"},
	}
}

// indexFold is strings.Index ignoring ASCII case.
func indexFold(s, sub string) int {
	n := len(sub)
	if n == 0 {
		return 0
	}
	lo, up := lowerASCII(sub[0]), upperASCII(sub[0])
	for i := 0; i+n <= len(s); i++ {
		if (s[i] == lo || s[i] == up) && strings.EqualFold(s[i:i+n], sub) {
			return i
		}
	}
	return -1
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upperASCII(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// scan tries the objects of text in order and takes the first that makes
// a valid action. inThink means text is an unclosed think block, so what
// precedes the action is reasoning.
func (p *Parser) scan(text string, inThink bool, r *run, depth int) (actions.Action, *ParseError) {
	var (
		best      *ParseError
		bestNamed bool
		chosen    actions.Action
		found     bool
		ignored   int
		pos       int
		truncated bool
	)
	for tries := 0; tries < maxCandidates; tries++ {
		k := strings.IndexByte(text[pos:], '{')
		if k < 0 {
			break
		}
		k += pos
		ext := scanExtent(text, k)
		cand := text[k:ext.end]
		if found {
			if p.looksLikeAction(cand, ext) {
				ignored++
			}
			pos = ext.end
			continue
		}
		sub := &run{notStrict: r.notStrict, sc: r.sc}
		act, named, perr := p.fromCandidate(cand, ext, sub, depth)
		if perr == nil {
			found, chosen = true, act
			if inThink {
				r.addReasoning(text[:k])
			}
			r.reasoning = append(r.reasoning, sub.reasoning...)
			r.notes = append(r.notes, sub.notes...)
			truncated = sub.truncated
			pos = ext.end
			continue
		}
		if named {
			ignored++
			if !bestNamed {
				best, bestNamed = perr, true
			}
			pos = ext.end
			continue
		}
		if best == nil {
			best = perr
		}
		if ext.cut {
			// An unbalanced brace in prose runs to the end of the text;
			// the action may start after it.
			pos = k + 1
		} else {
			// A closed object that is no action: only objects nested in
			// its structure are tried next ({{"action": ...}}), never text
			// inside its strings.
			pos = nextStructuralBrace(text, k+1, ext.end)
		}
	}
	if found {
		r.truncated = r.truncated || truncated
		switch {
		case ignored == 1:
			r.note("1 more action ignored")
		case ignored > 1:
			r.note("%d more actions ignored", ignored)
		}
		return chosen, nil
	}
	if bestNamed {
		return actions.Action{}, best
	}
	if inThink {
		return actions.Action{}, p.refuse(nil, "the answer ended inside its <think> block before any action; keep the thinking short, close it with </think> and then reply with one JSON object such as %s", p.example)
	}
	if best != nil {
		return actions.Action{}, best
	}
	return actions.Action{}, p.noAction()
}

func (p *Parser) noAction() *ParseError {
	return &ParseError{Reason: p.msgNoAction}
}

// fromCandidate decodes one object of the answer, strictly if it can and
// repaired otherwise. named reports that it named an action, so its error
// is about that action.
func (p *Parser) fromCandidate(cand string, ext extent, r *run, depth int) (actions.Action, bool, *ParseError) {
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
		v, ok = p.repair(cand, ext)
		if !ok {
			return actions.Action{}, false, p.noAction()
		}
		if ext.cut {
			r.truncated = true
			applyCut(&v, ext)
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
func (p *Parser) repair(cand string, ext extent) (jval, bool) {
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
func applyCut(v *jval, ext extent) {
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
func (p *Parser) looksLikeAction(cand string, ext extent) bool {
	v, ok := parseStrict(cand)
	if !ok {
		v, ok = p.repair(cand, ext)
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

func (p *Parser) refuse(sentinel error, format string, args ...any) *ParseError {
	return &ParseError{Reason: fmt.Sprintf(format, args...), err: sentinel}
}

// react reads the ReAct layout: "Action: name" and "Action Input: {...}".
// ok reports that the layout was present.
func (p *Parser) react(text string, r *run, depth int) (actions.Action, bool, *ParseError) {
	if indexFold(text, "action:") < 0 {
		return actions.Action{}, false, nil
	}
	var name, input, thought string
	inInput := false
	depth0 := 0 // braces open before the current line
	for _, line := range strings.Split(text, "\n") {
		inside := depth0 > 0
		depth0 += strings.Count(line, "{") - strings.Count(line, "}")
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
	if k := strings.IndexByte(input, '{'); k >= 0 {
		ext := scanExtent(input, k)
		cand := input[k:ext.end]
		v, ok := jval{}, false
		if !ext.cut {
			v, ok = parseStrict(cand)
		}
		if !ok {
			if v, ok = p.repair(cand, ext); ok && ext.cut {
				r.truncated = true
				applyCut(&v, ext)
			}
		}
		if ok && v.kind == jObj {
			params = v
		}
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
	act, perr := p.build(resolved, params.obj, nil, r, depth)
	return act, true, perr
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
