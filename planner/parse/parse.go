package parse

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/airi-go/airi/actions"
)

// Result is one action recovered from a model answer.
type Result struct {
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

// Error is a refusal: the answer holds no action that can be run.
// Error() is written for the model, which reads it on the next tick: what
// was wrong and what a correct answer looks like.
type Error struct {
	// Reason is the explanation for the model.
	Reason string
	// err is a sentinel callers may match (actions.ErrUnknownAction).
	err error
	// named reports that the answer named an action, so the refusal is
	// about that action rather than about finding one.
	named bool
}

// Error returns the explanation for the model.
func (e *Error) Error() string { return e.Reason }

// Unwrap returns the sentinel behind the refusal, if any.
func (e *Error) Unwrap() error { return e.err }

// Kinds of refusal, for logs and metrics.
const (
	KindNoAction      = "no-action"      // no JSON object naming an action was found
	KindUnknownAction = "unknown-action" // the answer named an action that does not exist
	KindInvalid       = "invalid-action" // a known action with missing or wrong parameters
)

// Kind names the refusal: KindNoAction, KindUnknownAction or KindInvalid.
func (e *Error) Kind() string {
	switch {
	case errors.Is(e.err, actions.ErrUnknownAction):
		return KindUnknownAction
	case e.named:
		return KindInvalid
	}
	return KindNoAction
}

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

// New returns a parser for the actions of reg.
func New(reg *actions.Registry) *Parser {
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
	// finish is how the provider said the answer ended.
	finish Finish
	// ignored counts the other actions of the answer, not run.
	ignored int
	// notStrict is a text already known to fail the strict parse.
	notStrict string
	// sc is the parse's scratch memory for decoded members.
	sc *scratch
}

func (r *run) note(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

// absorb takes what a sub-parse that gave the action learned.
func (r *run) absorb(sub *run) {
	r.reasoning = append(r.reasoning, sub.reasoning...)
	r.notes = append(r.notes, sub.notes...)
	r.ignored += sub.ignored
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

// Parse recovers one action from raw, the text of a model answer, not
// knowing how the answer ended: a value the end of the text interrupted
// is read as cut off by the length limit. The error, on refusal, is an
// *Error.
func (p *Parser) Parse(raw string) (res Result, err error) {
	return p.ParseEnded(raw, FinishUnknown)
}

// ParseEnded is Parse told how the answer ended (see Finish).
func (p *Parser) ParseEnded(raw string, finish Finish) (res Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			res = Result{}
			err = &Error{Reason: fmt.Sprintf("the answer could not be read as an action (%v); reply with exactly one JSON object such as %s", v, p.example)}
		}
	}()
	sc := p.scratch.Get().(*scratch)
	defer func() {
		sc.reset()
		p.scratch.Put(sc)
	}()
	r := &run{sc: sc, finish: finish}
	act, perr := p.parseText(raw, r, 0)
	if perr != nil {
		return Result{}, perr
	}
	if r.truncated {
		r.notes = append([]string{"answer was truncated"}, r.notes...)
	}
	switch {
	case r.ignored == 1:
		r.note("1 more action ignored")
	case r.ignored > 1:
		r.note("%d more actions ignored", r.ignored)
	}
	return Result{Action: act, Reasoning: strings.Join(r.reasoning, "\n\n"), Notes: r.notes}, nil
}

func (p *Parser) parseText(text string, r *run, depth int) (actions.Action, *Error) {
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
	// Punctuation typed by a CJK input method: ｛"action"："continue"｝.
	if hasWidePunct(rest) {
		if fixed, ok := narrowPunct(rest); ok {
			rest = fixed
			r.note("full-width punctuation read as JSON punctuation")
		}
	}
	// A JSON string whose content is the action.
	if rest[0] == '"' && depth < maxNesting {
		if v, ok := parseStrict(rest); ok && v.kind == jStr {
			return p.parseText(v.str, r, depth+1)
		}
	}
	if rest[0] == '"' || rest[0] == '\'' || rest[0] == '`' {
		if fixed, ok := openBrace(rest); ok {
			rest = fixed
			r.note("missing opening brace added")
		}
	}
	if rest[0] != '{' && rest[0] != '[' {
		if act, ok, perr := p.react(rest, r); ok {
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
func (p *Parser) scan(text string, inThink bool, r *run, depth int) (actions.Action, *Error) {
	var (
		best      *Error
		bestNamed bool
		chosen    actions.Action
		found     bool
		ignored   int
		pos       int
		truncated bool
	)
	// Once the action is found, the rest is only counted: the objects
	// then follow each other without overlap, so counting all of them
	// stays linear in the answer.
	for tries := 0; found || tries < maxCandidates; tries++ {
		k := strings.IndexByte(text[pos:], '{')
		if k < 0 {
			break
		}
		k += pos
		ext := scanExtent(text, k)
		cand := text[k:ext.end]
		if found {
			if p.looksLikeAction(cand, ext, r) {
				ignored++
			}
			pos = ext.end
			continue
		}
		sub := &run{notStrict: r.notStrict, sc: r.sc, finish: r.finish}
		act, named, perr := p.fromCandidate(cand, ext, sub, depth)
		if perr == nil {
			found, chosen = true, act
			if inThink {
				r.addReasoning(text[:k])
			}
			r.absorb(sub)
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
		r.ignored += ignored
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

func (p *Parser) noAction() *Error {
	return &Error{Reason: p.msgNoAction}
}

func (p *Parser) refuse(sentinel error, format string, args ...any) *Error {
	return &Error{Reason: fmt.Sprintf(format, args...), err: sentinel}
}
