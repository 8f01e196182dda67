package actions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// paramCheck holds every constraint of an action's generated schema in a
// form that runs on decoded values. It is built by walking that schema and
// refuses, at registration, any keyword or shape it does not check, so a
// parameter object it accepts is one the schema accepts, and the reverse.
type paramCheck struct {
	props  []propCheck
	byName map[string]int
}

// propCheck is one property of the parameter object.
type propCheck struct {
	name     string
	typ      jsonKind // kindString, kindInteger, kindNumber or kindBool
	required bool
	minLen   int // -1 when absent
	maxLen   int // -1 when absent
	pattern  *regexp.Regexp
	enum     []jsonValue
	enumText string // the enum as the model reads it
	minimum  *bound
	maximum  *bound
	exclMin  *bound
	exclMax  *bound
}

// problem is one way a parameter object differs from its schema, written
// for the model.
type problem string

// check appends what is wrong with one present property value.
func (p *propCheck) check(v jsonValue, out []problem) []problem {
	bad := func(format string, args ...any) []problem {
		return append(out, problem(fmt.Sprintf("%q ", p.name)+fmt.Sprintf(format, args...)))
	}
	switch {
	case p.typ == kindInteger && (v.kind != kindNumber || !v.isInteger()):
		return bad("must be an integer, got %s", v)
	case p.typ != kindInteger && v.kind != p.typ:
		return bad("must be a %s, got %s", p.typ, v)
	}
	switch p.typ {
	case kindString:
		if p.minLen >= 0 || p.maxLen >= 0 {
			n := utf8.RuneCountInString(v.text)
			if p.minLen >= 0 && n < p.minLen {
				if p.minLen == 1 {
					out = bad("must not be empty")
				} else {
					out = bad("must be at least %d characters long, got %d", p.minLen, n)
				}
			}
			if p.maxLen >= 0 && n > p.maxLen {
				out = bad("must be at most %d characters long, got %d", p.maxLen, n)
			}
		}
		if p.pattern != nil && !p.pattern.MatchString(v.text) {
			out = bad("must match the regular expression %s, got %s", p.pattern, v)
		}
	case kindInteger, kindNumber:
		for _, c := range []struct {
			b    *bound
			fail func(int) bool
			what string
		}{
			{p.minimum, func(c int) bool { return c < 0 }, "at least"},
			{p.maximum, func(c int) bool { return c > 0 }, "at most"},
			{p.exclMin, func(c int) bool { return c <= 0 }, "more than"},
			{p.exclMax, func(c int) bool { return c >= 0 }, "less than"},
		} {
			if c.b == nil {
				continue
			}
			cmp, ok := v.cmp(c.b)
			if !ok {
				out = bad("must be %s %s, and %s is too large to compare", c.what, c.b.lit, v)
				continue
			}
			if c.fail(cmp) {
				out = bad("must be %s %s, got %s", c.what, c.b.lit, v)
			}
		}
	}
	if p.enum != nil && !p.inEnum(v) {
		out = bad("must be one of %s, got %s", p.enumText, v)
	}
	return out
}

func (p *propCheck) inEnum(v jsonValue) bool {
	var r *big.Rat
	for _, e := range p.enum {
		switch e.kind {
		case kindString:
			if e.text == v.text {
				return true
			}
		case kindBool:
			if e.b == v.b {
				return true
			}
		case kindNumber:
			if e.text == v.text {
				return true
			}
			if r == nil {
				if r = v.rat(); r == nil {
					return false
				}
			}
			if er := e.rat(); er != nil && er.Cmp(r) == 0 {
				return true
			}
		}
	}
	return false
}

// members holds the values of a parameter object's members, aligned with
// the properties, and the keys that name no property.
type members struct {
	vals  []jsonValue
	set   []bool
	extra []string
}

func (pc *paramCheck) newMembers() members {
	return members{vals: make([]jsonValue, len(pc.props)), set: make([]bool, len(pc.props))}
}

func (m *members) put(pc *paramCheck, key string, v jsonValue) {
	i, ok := pc.byName[key]
	if !ok {
		m.extra = append(m.extra, key)
		return
	}
	m.vals[i], m.set[i] = v, true
}

// problems returns everything the schema refuses in m: missing required
// properties, then keys that are not properties, then each property's
// value in declaration order.
func (pc *paramCheck) problems(m members) []problem {
	var out []problem
	for i := range pc.props {
		if pc.props[i].required && !m.set[i] {
			out = append(out, problem(fmt.Sprintf("%q is required and missing", pc.props[i].name)))
		}
	}
	sort.Strings(m.extra)
	for _, k := range m.extra {
		out = append(out, pc.additional(k))
	}
	for i := range pc.props {
		if m.set[i] {
			out = pc.props[i].check(m.vals[i], out)
		}
	}
	return out
}

// additional words the refusal of a key that is not a parameter, naming
// the parameter it was probably meant to be.
func (pc *paramCheck) additional(key string) problem {
	for _, p := range pc.props {
		if strings.EqualFold(p.name, key) {
			return problem(fmt.Sprintf("%q is not a parameter; names are case-sensitive: write %q", key, p.name))
		}
	}
	if len(pc.props) == 0 {
		return problem(fmt.Sprintf("%q is not a parameter; this action takes none", key))
	}
	names := make([]string, len(pc.props))
	for i, p := range pc.props {
		names[i] = strconv.Quote(p.name)
	}
	return problem(fmt.Sprintf("%q is not a parameter; the parameters are %s", key, strings.Join(names, ", ")))
}

// checkMap checks a decoded parameter object.
func (pc *paramCheck) checkMap(params map[string]any) []problem {
	m := pc.newMembers()
	for k, v := range params {
		m.put(pc, k, valueOf(v))
	}
	return pc.problems(m)
}

// checkRaw checks a parameter object in JSON. It fails only when raw is
// not valid JSON; a valid value that is not an object is a problem.
func (pc *paramCheck) checkRaw(raw []byte) ([]problem, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return nil, err
		}
	}
	if trimmed := bytes.TrimSpace(raw); trimmed[0] != '{' {
		v, err := rawValue(trimmed)
		if err != nil {
			return nil, err
		}
		return []problem{problem(fmt.Sprintf("the parameters must be an object, got %s", v))}, nil
	}
	m := pc.newMembers()
	for k, r := range obj {
		v, err := rawValue(r)
		if err != nil {
			return nil, err
		}
		m.put(pc, k, v)
	}
	return pc.problems(m), nil
}

func joinProblems(ps []problem) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, "; ")
}
