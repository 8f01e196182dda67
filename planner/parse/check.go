package parse

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/airi-go/airi/actions"
)

// schemaCheck holds the checks of an action's parameters in a form that
// runs on typed values without building a generic document. It is made
// from what the registry checks (actions.Field); when a field asks for
// something checked here only by the registry (a pattern, a number type, a
// bound with a fraction, an enum of numbers), exact is false and the
// parser validates with the registry instead, so the checks are always the
// registry's and never a partial copy of them.
type schemaCheck struct {
	exact  bool
	fields []fieldCheck // aligned with actionInfo.fields
}

// fieldCheck is one property's constraints: the registry's, with its
// integer bounds parsed.
type fieldCheck struct {
	actions.Field
	minimum, maximum, exclMin, exclMax *int64
}

// newSchemaCheck makes the checks of an action's fields.
func newSchemaCheck(fields []actions.Field) schemaCheck {
	sc := schemaCheck{exact: true, fields: make([]fieldCheck, len(fields))}
	for i, f := range fields {
		switch {
		case f.Pattern != "",
			f.Type != "string" && f.Type != "integer" && f.Type != "boolean",
			f.Enum != nil && f.Type != "string":
			return schemaCheck{}
		}
		fc := fieldCheck{Field: f}
		for _, b := range []struct {
			lit string
			to  **int64
		}{{f.Minimum, &fc.minimum}, {f.Maximum, &fc.maximum}, {f.ExclusiveMinimum, &fc.exclMin}, {f.ExclusiveMaximum, &fc.exclMax}} {
			if b.lit == "" {
				continue
			}
			n, err := strconv.ParseInt(b.lit, 10, 64)
			if err != nil {
				return schemaCheck{}
			}
			*b.to = &n
		}
		sc.fields[i] = fc
	}
	return sc
}

// check reports the first constraint a set slot violates, in words for
// the model.
func (fc *fieldCheck) check(s *slot) (string, bool) {
	switch fc.Type {
	case "string":
		if s.kind != jStr {
			return "must be a string", false
		}
		if fc.MinLength >= 0 || fc.MaxLength >= 0 {
			n := utf8.RuneCountInString(s.str)
			if fc.MinLength >= 0 && n < fc.MinLength {
				if fc.MinLength == 1 {
					return "must not be empty", false
				}
				return fmt.Sprintf("must be at least %d characters long", fc.MinLength), false
			}
			if fc.MaxLength >= 0 && n > fc.MaxLength {
				return fmt.Sprintf("must be at most %d characters long", fc.MaxLength), false
			}
		}
		if fc.Enum != nil {
			for _, e := range fc.Enum {
				if e == s.str {
					return "", true
				}
			}
			return fmt.Sprintf("must be one of %q", fc.Enum), false
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
