package actions

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"unicode/utf8"
)

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
