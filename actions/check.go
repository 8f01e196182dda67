package actions

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
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

// jsonKind is the JSON type of a value; kindInteger is only a schema type.
type jsonKind uint8

const (
	kindInvalid jsonKind = iota
	kindNull
	kindBool
	kindNumber
	kindInteger
	kindString
	kindObject
	kindArray
)

func (k jsonKind) String() string {
	switch k {
	case kindNull:
		return "null"
	case kindBool:
		return "boolean"
	case kindNumber:
		return "number"
	case kindInteger:
		return "integer"
	case kindString:
		return "string"
	case kindObject:
		return "object"
	case kindArray:
		return "array"
	}
	return "not a JSON value"
}

// schemaKind returns the kind of a schema type a property may have, or
// kindInvalid.
func schemaKind(t string) jsonKind {
	switch t {
	case "string":
		return kindString
	case "integer":
		return kindInteger
	case "number":
		return kindNumber
	case "boolean":
		return kindBool
	}
	return kindInvalid
}

// jsonValue is one parameter value: its kind, and the text of a string or
// the literal of a number.
type jsonValue struct {
	kind jsonKind
	text string
	b    bool
}

// bound is a numeric limit of the schema, compared exactly.
type bound struct {
	lit string
	rat *big.Rat
	n   int64
	int bool // n holds the bound
}

// propKeyword reports whether a property may have the keyword: one that
// constrains its value (which ones apply depends on its type), or an
// annotation that only describes it.
func propKeyword(k string) bool {
	switch k {
	case "type", "enum", "minLength", "maxLength", "pattern",
		"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		return true
	case "description", "title", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment":
		return true
	}
	return false
}

const supportedTop = "type, properties, required, additionalProperties (false), description, title"
const supportedProp = "type (string, integer, number, boolean), enum, minLength, maxLength, pattern, minimum, maximum, exclusiveMinimum, exclusiveMaximum, and the annotations description, title, default, examples, deprecated, readOnly, writeOnly, $comment"

// newParamCheck walks the schema generated for typ and returns its checks,
// or an error naming the keyword or shape that is not checked here.
func newParamCheck(raw json.RawMessage, typ reflect.Type) (*paramCheck, error) {
	var top map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&top); err != nil {
		return nil, fmt.Errorf("read the generated schema: %w", err)
	}
	var props map[string]any
	var required []any
	sawAdditional := false
	for k, v := range top {
		switch k {
		case "description", "title":
		case "type":
			if v != "object" {
				return nil, fmt.Errorf("keyword \"type\" is %v; only an object is supported", v)
			}
		case "properties":
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("keyword \"properties\" is not an object")
			}
			props = m
		case "required":
			a, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("keyword \"required\" is not an array")
			}
			required = a
		case "additionalProperties":
			if v != false {
				return nil, fmt.Errorf("keyword \"additionalProperties\" is %v; only false is supported", v)
			}
			sawAdditional = true
		default:
			return nil, fmt.Errorf("keyword %q of the parameter object is not supported (supported: %s)", k, supportedTop)
		}
	}
	if top["type"] != "object" {
		return nil, fmt.Errorf("the parameter object has no \"type\": \"object\"")
	}
	if !sawAdditional {
		return nil, fmt.Errorf("the parameter object does not refuse additional properties")
	}
	fields, err := jsonFields(typ)
	if err != nil {
		return nil, err
	}
	pc := &paramCheck{byName: make(map[string]int, len(props))}
	names := make([]string, 0, len(props))
	for name := range props {
		if _, ok := fields[name]; !ok {
			return nil, fmt.Errorf("parameter %q: no field of %s decodes it", name, typ)
		}
		names = append(names, name)
	}
	// The properties keep the order of the struct's fields, for stable
	// error messages.
	sort.Slice(names, func(i, j int) bool { return fields[names[i]].Index[0] < fields[names[j]].Index[0] })
	for _, name := range names {
		f := fields[name]
		m, ok := props[name].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("parameter %q: its schema %v is not supported; only an object schema with a type is", name, props[name])
		}
		p, err := newPropCheck(name, m, f)
		if err != nil {
			return nil, fmt.Errorf("parameter %q: %w", name, err)
		}
		pc.byName[name] = len(pc.props)
		pc.props = append(pc.props, p)
	}
	for _, r := range required {
		name, ok := r.(string)
		if !ok {
			return nil, fmt.Errorf("keyword \"required\" lists %v, not a name", r)
		}
		i, ok := pc.byName[name]
		if !ok {
			return nil, fmt.Errorf("keyword \"required\" lists %q, which is not a property", name)
		}
		pc.props[i].required = true
	}
	return pc, nil
}

// jsonFields returns the fields of typ by the name encoding/json decodes
// into them, refusing what would make typed decoding differ from the
// schema: embedded fields (flattened by rules of their own), the ",string"
// option and duplicate names.
func jsonFields(typ reflect.Type) (map[string]reflect.StructField, error) {
	out := map[string]reflect.StructField{}
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		if f.Anonymous {
			return nil, fmt.Errorf("embedded field %s of %s is not supported", f.Name, typ)
		}
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		for _, o := range strings.Split(opts, ",") {
			if o == "string" {
				return nil, fmt.Errorf("field %s of %s: the json option \"string\" is not supported", f.Name, typ)
			}
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("two fields of %s decode %q", typ, name)
		}
		out[name] = f
	}
	return out, nil
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonNumber      = reflect.TypeFor[json.Number]()
)

// goKindFits reports whether encoding/json decodes a value of kind k into
// t exactly as the schema describes it.
func goKindFits(t reflect.Type, k jsonKind) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	// encoding/json decodes these by rules of their own.
	if t == jsonNumber || reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return false
	}
	switch t.Kind() {
	case reflect.String:
		return k == kindString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return k == kindInteger
	case reflect.Float32, reflect.Float64:
		return k == kindNumber
	case reflect.Bool:
		return k == kindBool
	}
	return false
}

func newPropCheck(name string, m map[string]any, f reflect.StructField) (propCheck, error) {
	p := propCheck{name: name, minLen: -1, maxLen: -1}
	t, isString := m["type"].(string)
	if isString && schemaKind(t) == kindInvalid {
		return p, fmt.Errorf("keyword \"type\" is %q; only string, integer, number and boolean are supported", t)
	}
	for k := range m {
		if !propKeyword(k) {
			return p, fmt.Errorf("keyword %q is not supported (supported: %s)", k, supportedProp)
		}
	}
	if !isString {
		return p, fmt.Errorf("keyword \"type\" is missing or not a single type")
	}
	p.typ = schemaKind(t)
	if !goKindFits(f.Type, p.typ) {
		return p, fmt.Errorf("field %s of Go type %s is not decoded as a plain %s", f.Name, f.Type, t)
	}
	for k, v := range m {
		var err error
		switch {
		case k == "minLength" && p.typ == kindString:
			p.minLen, err = lengthBound(v)
		case k == "maxLength" && p.typ == kindString:
			p.maxLen, err = lengthBound(v)
		case k == "pattern" && p.typ == kindString:
			s, ok := v.(string)
			if !ok {
				return p, fmt.Errorf("keyword \"pattern\" is not a string")
			}
			if p.pattern, err = regexp.Compile(s); err != nil {
				return p, fmt.Errorf("keyword \"pattern\": %w", err)
			}
		case k == "minimum" && p.numeric():
			p.minimum, err = newBound(v)
		case k == "maximum" && p.numeric():
			p.maximum, err = newBound(v)
		case k == "exclusiveMinimum" && p.numeric():
			p.exclMin, err = newBound(v)
		case k == "exclusiveMaximum" && p.numeric():
			p.exclMax, err = newBound(v)
		case k == "enum":
			err = p.setEnum(v)
		case k == "minLength", k == "maxLength", k == "pattern",
			k == "minimum", k == "maximum", k == "exclusiveMinimum", k == "exclusiveMaximum":
			return p, fmt.Errorf("keyword %q does not apply to a %s", k, t)
		}
		if err != nil {
			return p, fmt.Errorf("keyword %q: %w", k, err)
		}
	}
	return p, nil
}

// fields describes the properties, in declaration order, with what each
// is checked for.
func (pc *paramCheck) fields() []Field {
	out := make([]Field, len(pc.props))
	for i, p := range pc.props {
		f := Field{Name: p.name, Type: p.typ.String(), Required: p.required, MinLength: p.minLen, MaxLength: p.maxLen}
		if p.pattern != nil {
			f.Pattern = p.pattern.String()
		}
		for _, e := range p.enum {
			f.Enum = append(f.Enum, e.literal())
		}
		for _, b := range []struct {
			bound *bound
			to    *string
		}{{p.minimum, &f.Minimum}, {p.maximum, &f.Maximum}, {p.exclMin, &f.ExclusiveMinimum}, {p.exclMax, &f.ExclusiveMaximum}} {
			if b.bound != nil {
				*b.to = b.bound.lit
			}
		}
		out[i] = f
	}
	return out
}

func (p *propCheck) numeric() bool { return p.typ == kindInteger || p.typ == kindNumber }

func lengthBound(v any) (int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%v is not a number", v)
	}
	i, err := strconv.ParseInt(string(n), 10, 32)
	if err != nil || i < 0 {
		return 0, fmt.Errorf("%s is not a length", n)
	}
	return int(i), nil
}

func newBound(v any) (*bound, error) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("%v is not a number", v)
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return nil, fmt.Errorf("%s is not a number", n)
	}
	b := &bound{lit: string(n), rat: r}
	if r.IsInt() && r.Num().IsInt64() {
		b.n, b.int = r.Num().Int64(), true
	}
	return b, nil
}

func (p *propCheck) setEnum(v any) error {
	items, ok := v.([]any)
	if !ok || len(items) == 0 {
		return fmt.Errorf("%v is not a non-empty array", v)
	}
	texts := make([]string, 0, len(items))
	for _, it := range items {
		jv := valueOf(it)
		switch {
		case p.typ == kindString && jv.kind == kindString,
			p.numeric() && jv.kind == kindNumber,
			p.typ == kindBool && jv.kind == kindBool:
		default:
			return fmt.Errorf("value %v does not have the property's type", it)
		}
		if jv.kind == kindNumber {
			if _, ok := new(big.Rat).SetString(jv.text); !ok {
				return fmt.Errorf("value %s cannot be compared", jv.text)
			}
		}
		p.enum = append(p.enum, jv)
		texts = append(texts, jv.String())
	}
	p.enumText = strings.Join(texts, ", ")
	return nil
}

// valueOf classifies a value as encoding/json produces it (with or
// without UseNumber), or as a caller built it from Go integers.
func valueOf(v any) jsonValue {
	switch v := v.(type) {
	case nil:
		return jsonValue{kind: kindNull}
	case bool:
		return jsonValue{kind: kindBool, b: v}
	case string:
		return jsonValue{kind: kindString, text: v}
	case json.Number:
		return jsonValue{kind: kindNumber, text: string(v)}
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return jsonValue{}
		}
		return jsonValue{kind: kindNumber, text: strconv.FormatFloat(v, 'g', -1, 64)}
	case float32:
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return jsonValue{}
		}
		return jsonValue{kind: kindNumber, text: strconv.FormatFloat(float64(v), 'g', -1, 32)}
	case map[string]any:
		return jsonValue{kind: kindObject}
	case []any:
		return jsonValue{kind: kindArray}
	}
	// Go integers, of any size.
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return jsonValue{kind: kindNumber, text: strconv.FormatInt(rv.Int(), 10)}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return jsonValue{kind: kindNumber, text: strconv.FormatUint(rv.Uint(), 10)}
	}
	return jsonValue{}
}

// rawValue classifies one member of a parameter object that encoding/json
// has already found to be valid JSON (so never empty).
func rawValue(raw json.RawMessage) (jsonValue, error) {
	switch raw[0] {
	case 'n':
		return jsonValue{kind: kindNull}, nil
	case 't', 'f':
		return jsonValue{kind: kindBool, b: raw[0] == 't'}, nil
	case '{':
		return jsonValue{kind: kindObject}, nil
	case '[':
		return jsonValue{kind: kindArray}, nil
	case '"':
		body := raw[1 : len(raw)-1]
		if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
			return jsonValue{kind: kindString, text: string(body)}, nil
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return jsonValue{}, err
		}
		return jsonValue{kind: kindString, text: s}, nil
	}
	return jsonValue{kind: kindNumber, text: string(raw)}, nil
}

// literal is an enum value as Field.Enum lists it: a string as it is,
// a number or a boolean as JSON writes it.
func (v jsonValue) literal() string {
	switch v.kind {
	case kindString, kindNumber:
		return v.text
	case kindBool:
		return strconv.FormatBool(v.b)
	}
	return v.String()
}

func (v jsonValue) String() string {
	switch v.kind {
	case kindString:
		s := v.text
		if utf8.RuneCountInString(s) > 40 {
			s = string([]rune(s)[:40]) + "…"
		}
		return strconv.Quote(s)
	case kindNumber:
		return v.text
	case kindBool:
		return strconv.FormatBool(v.b)
	case kindNull:
		return "null"
	case kindObject:
		return "an object"
	case kindArray:
		return "an array"
	}
	return "a value that is not JSON"
}

// rat returns the exact value of a number, or nil when it is too large to
// be compared.
func (v jsonValue) rat() *big.Rat {
	r, ok := new(big.Rat).SetString(v.text)
	if !ok {
		return nil
	}
	return r
}

// cmp compares a number with a bound; ok is false when the number cannot
// be compared.
func (v jsonValue) cmp(b *bound) (c int, ok bool) {
	if b.int {
		if n, err := strconv.ParseInt(v.text, 10, 64); err == nil {
			switch {
			case n < b.n:
				return -1, true
			case n > b.n:
				return 1, true
			}
			return 0, true
		}
	}
	r := v.rat()
	if r == nil {
		return 0, false
	}
	return r.Cmp(b.rat), true
}

// isInteger reports whether a number has no fractional part, however it is
// written: 2, 2.0 and 2e3 are integers, 1.5 is not.
func (v jsonValue) isInteger() bool {
	if _, err := strconv.ParseInt(v.text, 10, 64); err == nil {
		return true
	}
	r := v.rat()
	return r != nil && r.IsInt()
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
