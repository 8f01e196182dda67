package parse

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/airi-go/airi/actions"
)

// schemaCheck holds the checks of an action's JSON schema in a form that
// runs on typed values without building a generic document. It is derived
// from the schema the registry generated; when that schema uses anything
// beyond the keywords understood here, exact is false and the parser
// validates with the registry instead, so the checks are always
// equivalent to the schema and never a partial copy of it.
type schemaCheck struct {
	exact  bool
	fields []fieldCheck // aligned with actionInfo.fields
}

// fieldCheck is one property's constraints.
type fieldCheck struct {
	typ       string
	minLength int64 // -1 when absent
	maxLength int64
	minimum   *int64
	maximum   *int64
	exclMin   *int64
	exclMax   *int64
	enum      []string
}

// newSchemaCheck derives the checks from the registry's schema of name.
func newSchemaCheck(reg *actions.Registry, name string, fields []actions.Field) schemaCheck {
	var raw json.RawMessage
	for _, e := range reg.Catalog() {
		if e.Name == name {
			raw = e.Schema
		}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return schemaCheck{}
	}
	for k, v := range top {
		switch k {
		case "description", "title", "$schema", "$id", "required":
		case "type":
			if string(v) != `"object"` {
				return schemaCheck{}
			}
		case "additionalProperties":
			if string(v) != "false" {
				return schemaCheck{}
			}
		case "properties":
		default:
			return schemaCheck{}
		}
	}
	if _, ok := top["additionalProperties"]; !ok {
		return schemaCheck{}
	}
	var props map[string]map[string]json.RawMessage
	if err := json.Unmarshal(top["properties"], &props); err != nil {
		return schemaCheck{}
	}
	if len(props) != len(fields) {
		return schemaCheck{}
	}
	sc := schemaCheck{exact: true, fields: make([]fieldCheck, len(fields))}
	for i, f := range fields {
		prop, ok := props[f.Name]
		if !ok {
			return schemaCheck{}
		}
		fc := fieldCheck{minLength: -1, maxLength: -1}
		for k, v := range prop {
			var err error
			switch k {
			case "description", "title", "default", "examples":
			case "type":
				err = json.Unmarshal(v, &fc.typ)
				switch fc.typ {
				case "string", "integer", "boolean":
				default:
					return schemaCheck{}
				}
			case "minLength":
				err = json.Unmarshal(v, &fc.minLength)
			case "maxLength":
				err = json.Unmarshal(v, &fc.maxLength)
			case "minimum":
				fc.minimum, err = intBound(v)
			case "maximum":
				fc.maximum, err = intBound(v)
			case "exclusiveMinimum":
				fc.exclMin, err = intBound(v)
			case "exclusiveMaximum":
				fc.exclMax, err = intBound(v)
			case "enum":
				err = json.Unmarshal(v, &fc.enum)
				if fc.enum == nil {
					return schemaCheck{}
				}
			default:
				return schemaCheck{}
			}
			if err != nil {
				return schemaCheck{}
			}
		}
		if fc.typ == "" || fc.typ != f.Type {
			return schemaCheck{}
		}
		sc.fields[i] = fc
	}
	return sc
}

// intBound reads a numeric bound that is a whole number; other bounds are
// left to the registry.
func intBound(v json.RawMessage) (*int64, error) {
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("bound %s is not a whole number", v)
	}
	return &n, nil
}

// check reports the first constraint a set slot violates, in words for
// the model.
func (fc *fieldCheck) check(s *slot) (string, bool) {
	switch fc.typ {
	case "string":
		if s.kind != jStr {
			return "must be a string", false
		}
		if fc.minLength >= 0 || fc.maxLength >= 0 {
			n := int64(utf8.RuneCountInString(s.str))
			if fc.minLength >= 0 && n < fc.minLength {
				if fc.minLength == 1 {
					return "must not be empty", false
				}
				return fmt.Sprintf("must be at least %d characters long", fc.minLength), false
			}
			if fc.maxLength >= 0 && n > fc.maxLength {
				return fmt.Sprintf("must be at most %d characters long", fc.maxLength), false
			}
		}
		if fc.enum != nil {
			for _, e := range fc.enum {
				if e == s.str {
					return "", true
				}
			}
			return fmt.Sprintf("must be one of %q", fc.enum), false
		}
	case "integer":
		if s.kind != jNum {
			return "must be an integer", false
		}
		switch {
		case fc.minimum != nil && s.num < *fc.minimum:
			return fmt.Sprintf("must be at least %d", *fc.minimum), false
		case fc.maximum != nil && s.num > *fc.maximum:
			return fmt.Sprintf("must be at most %d", *fc.maximum), false
		case fc.exclMin != nil && s.num <= *fc.exclMin:
			return fmt.Sprintf("must be more than %d", *fc.exclMin), false
		case fc.exclMax != nil && s.num >= *fc.exclMax:
			return fmt.Sprintf("must be less than %d", *fc.exclMax), false
		}
	case "boolean":
		if s.kind != jBool {
			return "must be true or false", false
		}
	}
	return "", true
}
