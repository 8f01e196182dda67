package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/airi-go/airi/actions"
)

// rawField extracts the string "raw" of an input line, and its optional
// string "finish": the line must be one JSON object, and its "raw"
// member a string. It decodes in one pass
// without reflection or copies: the line's strings are unescaped in place
// and the result shares the line's memory, so the line must not be used
// again while the result is. With encoding/json in its place `airi parse
// --jsonl` runs about 2.5x slower; see BenchmarkPipeline in planner/jsonl.
func rawField(line []byte) (raw, finish string, err error) {
	d := lineDecoder{s: line}
	raw, found, ok := d.object()
	if ok {
		d.ws()
		ok = d.i == len(d.s)
	}
	if !ok || !found {
		return "", "", errors.New(`input line is not a JSON object with a string "raw"`)
	}
	if d.finishBad {
		return "", "", errors.New(`"finish" of the input line is not a string ("stop" or "length")`)
	}
	return raw, d.finish, nil
}

// lineDecoder is a strict JSON reader for --jsonl input lines.
type lineDecoder struct {
	s     []byte
	i     int
	depth int
	// finish is the line's "finish" member; finishBad reports one that
	// is not a string.
	finish    string
	finishBad bool
}

func (d *lineDecoder) ws() {
	for d.i < len(d.s) && (d.s[d.i] == ' ' || d.s[d.i] == '\t' || d.s[d.i] == '\n' || d.s[d.i] == '\r') {
		d.i++
	}
}

// object reads the top-level object and returns its "raw" member when it
// is a string (the last one wins, as with encoding/json); found is false
// otherwise.
func (d *lineDecoder) object() (raw string, found, ok bool) {
	d.ws()
	if d.i >= len(d.s) || d.s[d.i] != '{' {
		return "", false, false
	}
	d.i++
	d.ws()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		return "", false, true
	}
	for {
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return "", false, false
		}
		key, ok := d.str()
		if !ok {
			return "", false, false
		}
		d.ws()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return "", false, false
		}
		d.i++
		d.ws()
		if key == "raw" {
			if d.i < len(d.s) && d.s[d.i] == '"' {
				v, ok := d.str()
				if !ok {
					return "", false, false
				}
				raw, found = v, true
			} else {
				raw, found = "", false
				if !d.skip() {
					return "", false, false
				}
			}
		} else if key == "finish" && d.i < len(d.s) && d.s[d.i] == '"' {
			v, ok := d.str()
			if !ok {
				return "", false, false
			}
			d.finish, d.finishBad = v, false
		} else {
			if key == "finish" {
				d.finishBad = true
			}
			if !d.skip() {
				return "", false, false
			}
		}
		d.ws()
		if d.i >= len(d.s) {
			return "", false, false
		}
		switch d.s[d.i] {
		case ',':
			d.i++
			d.ws()
		case '}':
			d.i++
			return raw, found, true
		default:
			return "", false, false
		}
	}
}

// skip passes over one value, checking it is well formed.
func (d *lineDecoder) skip() bool {
	if d.i >= len(d.s) {
		return false
	}
	c := d.s[d.i]
	switch {
	case c == '"':
		_, ok := d.str()
		return ok
	case c == '{' || c == '[':
		d.depth++
		if d.depth > 1000 {
			return false
		}
		defer func() { d.depth-- }()
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		d.i++
		d.ws()
		if d.i < len(d.s) && d.s[d.i] == closing {
			d.i++
			return true
		}
		for {
			if c == '{' {
				if d.i >= len(d.s) || d.s[d.i] != '"' {
					return false
				}
				if _, ok := d.str(); !ok {
					return false
				}
				d.ws()
				if d.i >= len(d.s) || d.s[d.i] != ':' {
					return false
				}
				d.i++
				d.ws()
			}
			if !d.skip() {
				return false
			}
			d.ws()
			if d.i >= len(d.s) {
				return false
			}
			if d.s[d.i] == closing {
				d.i++
				return true
			}
			if d.s[d.i] != ',' {
				return false
			}
			d.i++
			d.ws()
		}
	case c == '-' || (c >= '0' && c <= '9'):
		start := d.i
		for d.i < len(d.s) && strings.IndexByte("+-0123456789.eE", d.s[d.i]) >= 0 {
			d.i++
		}
		var n json.Number = json.Number(d.s[start:d.i])
		_, err := n.Float64()
		return err == nil
	case bytes.HasPrefix(d.s[d.i:], []byte("true")):
		d.i += 4
		return true
	case bytes.HasPrefix(d.s[d.i:], []byte("false")):
		d.i += 5
		return true
	case bytes.HasPrefix(d.s[d.i:], []byte("null")):
		d.i += 4
		return true
	}
	return false
}

// str decodes the string at d.i in one pass over its bytes, in place.
func (d *lineDecoder) str() (string, bool) {
	s := d.s
	start := d.i + 1
	i := start
	for i < len(s) && stringPlain[s[i]] == '1' {
		i++
	}
	if i >= len(s) || s[i] < 0x20 {
		return "", false
	}
	if s[i] == '"' {
		d.i = i + 1
		return unsafe.String(&s[start], i-start), true
	}
	// Unescape in place: the decoded text is never longer than its
	// escaped form, so writing (at w) never overtakes reading (at i).
	w := i
	for i < len(s) {
		c := s[i]
		if stringPlain[c] == '1' {
			s[w] = c
			w++
			i++
			continue
		}
		switch {
		case c == '"':
			d.i = i + 1
			return unsafe.String(&s[start], w-start), true
		case c < 0x20, i+1 >= len(s):
			return "", false
		}
		// c is a backslash.
		var e byte
		switch s[i+1] {
		case '"', '\\', '/':
			e = s[i+1]
		case 'b':
			e = '\b'
		case 'f':
			e = '\f'
		case 'n':
			e = '\n'
		case 'r':
			e = '\r'
		case 't':
			e = '\t'
		case 'u':
			r, ok := hexRune(s, i+2)
			if !ok {
				return "", false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(0), false
				if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r2, ok2 = hexRune(s, i+2)
				}
				if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			var enc [utf8.UTFMax]byte
			w += copy(s[w:], enc[:utf8.EncodeRune(enc[:], r)])
			continue
		default:
			return "", false
		}
		s[w] = e
		w++
		i += 2
	}
	return "", false
}

func hexRune(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// actionEncoder writes actions in the flat form of actions.Action's
// MarshalJSON, byte for byte, without encoding/json's reflection walk for
// the parameter types it knows; others go through MarshalJSON. Encoding
// results with encoding/json instead makes `airi parse --jsonl` about 3x
// slower; see BenchmarkPipeline in planner/jsonl.
type actionEncoder struct {
	plans map[reflect.Type][]fieldPlan // read-only after construction
}

// fieldPlan is how one parameter field is written.
type fieldPlan struct {
	index     int
	key       []byte // "name":
	kind      reflect.Kind
	ptr       bool
	omitEmpty bool
}

// newActionEncoder prepares plans for the parameter types of reg.
func newActionEncoder(reg *actions.Registry) *actionEncoder {
	e := &actionEncoder{plans: map[reflect.Type][]fieldPlan{}}
	for _, name := range reg.Names() {
		v, err := reg.New(name)
		if err != nil {
			continue
		}
		t := reflect.TypeOf(v).Elem()
		if plan, ok := planFor(t); ok {
			e.plans[t] = plan
		}
	}
	return e
}

// planFor describes a struct whose fields are all plain strings, integers
// or booleans (or pointers to them) with ordinary json tags.
func planFor(t reflect.Type) ([]fieldPlan, bool) {
	var plan []fieldPlan
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			return nil, false
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		fp := fieldPlan{index: i}
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "omitempty":
				fp.omitEmpty = true
			case "", "omitzero":
				if o == "omitzero" {
					return nil, false
				}
			default:
				return nil, false
			}
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			fp.ptr = true
			ft = ft.Elem()
		}
		switch ft.Kind() {
		case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			fp.kind = ft.Kind()
		default:
			return nil, false
		}
		if ft.PkgPath() != "" || ft.Implements(reflect.TypeFor[json.Marshaler]()) {
			return nil, false // a named type may marshal itself
		}
		key := appendJSONString(nil, name)
		fp.key = append(key, ':')
		plan = append(plan, fp)
	}
	return plan, true
}

// appendBuiltin writes the built-in actions, which nearly every answer
// is, without reflection. TestActionEncoderMatchesMarshalJSON keeps it
// equal to MarshalJSON.
func appendBuiltin(dst []byte, a actions.Action) ([]byte, bool) {
	switch p := a.Params.(type) {
	case *actions.SendMessage:
		if p == nil {
			return dst, false
		}
		dst = append(dst, `{"action":`...)
		dst = appendJSONString(dst, a.Name)
		dst = append(dst, `,"channelId":`...)
		dst = appendJSONString(dst, p.ChannelID)
		dst = append(dst, `,"content":`...)
		dst = appendJSONString(dst, p.Content)
		if p.ReplyTo != "" {
			dst = append(dst, `,"replyTo":`...)
			dst = appendJSONString(dst, p.ReplyTo)
		}
		if p.Then != "" {
			dst = append(dst, `,"then":`...)
			dst = appendJSONString(dst, p.Then)
		}
	case *actions.ReadUnreadMessages:
		if p == nil {
			return dst, false
		}
		dst = append(dst, `{"action":`...)
		dst = appendJSONString(dst, a.Name)
		dst = append(dst, `,"channelId":`...)
		dst = appendJSONString(dst, p.ChannelID)
	case *actions.Sleep:
		if p == nil {
			return dst, false
		}
		dst = append(dst, `{"action":`...)
		dst = appendJSONString(dst, a.Name)
		if p.Duration != nil {
			dst = append(dst, `,"duration":`...)
			dst = strconv.AppendInt(dst, *p.Duration, 10)
		}
	case *actions.Continue, *actions.Break, *actions.ListChannels:
		if reflect.ValueOf(p).IsNil() {
			return dst, false
		}
		dst = append(dst, `{"action":`...)
		dst = appendJSONString(dst, a.Name)
	default:
		return dst, false
	}
	return append(dst, '}'), true
}

// appendAction writes a in its flat form.
func (e *actionEncoder) appendAction(dst []byte, a actions.Action) ([]byte, error) {
	if out, ok := appendBuiltin(dst, a); ok {
		return out, nil
	}
	v := reflect.ValueOf(a.Params)
	if a.Params != nil && v.Kind() == reflect.Pointer && !v.IsNil() {
		if plan, ok := e.plans[v.Type().Elem()]; ok {
			st := v.Elem()
			dst = append(dst, `{"action":`...)
			dst = appendJSONString(dst, a.Name)
			for _, fp := range plan {
				fv := st.Field(fp.index)
				if fp.ptr {
					if fv.IsNil() {
						if fp.omitEmpty {
							continue
						}
						dst = append(dst, ',')
						dst = append(dst, fp.key...)
						dst = append(dst, "null"...)
						continue
					}
					fv = fv.Elem()
				} else if fp.omitEmpty && fv.IsZero() {
					continue
				}
				dst = append(dst, ',')
				dst = append(dst, fp.key...)
				switch fp.kind {
				case reflect.String:
					dst = appendJSONString(dst, fv.String())
				case reflect.Bool:
					dst = strconv.AppendBool(dst, fv.Bool())
				default:
					dst = strconv.AppendInt(dst, fv.Int(), 10)
				}
			}
			return append(dst, '}'), nil
		}
	}
	b, err := a.MarshalJSON()
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// jsonPlain marks with '1' the bytes appendJSONString copies as they are:
// printable ASCII other than the quote, the backslash and <, >, &.
const jsonPlain = "" +
	"00000000000000000000000000000000" +
	"11011101111111111111111111110101" +
	"11111111111111111111111111110111" +
	"11111111111111111111111111111111" +
	"00000000000000000000000000000000" +
	"00000000000000000000000000000000" +
	"00000000000000000000000000000000" +
	"00000000000000000000000000000000"

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

// appendJSONString writes s as a JSON string the way encoding/json does:
// HTML-sensitive characters and U+2028/U+2029 escaped, invalid UTF-8
// replaced. It is part of the action encoder (see BenchmarkPipeline).
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if jsonPlain[c] == '1' {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
