package actions

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

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
