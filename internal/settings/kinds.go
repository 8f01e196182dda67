package settings

import (
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Parse reads a value into its field of the configuration C. Its errors
// say what was wanted (a *WantError); Describe adds the name and the
// value.
type Parse[C any] func(*C, Value) error

// The kinds below make a setting's Parse from its target (where the value
// goes in the configuration) and its checks.

// Text is a string setting, trimmed; check, when set, refuses bad values.
func Text[C any](target func(*C) *string, check func(string) error) Parse[C] {
	return func(c *C, v Value) error {
		s, ok := v.Scalar()
		if !ok {
			return Want("want a single value, not a list or map")
		}
		s = strings.TrimSpace(s)
		if check != nil {
			if err := check(s); err != nil {
				return err
			}
		}
		*target(c) = s
		return nil
	}
}

// OneOf is a string setting that takes one of choices.
func OneOf[C any](target func(*C) *string, choices ...string) Parse[C] {
	return Text(target, func(s string) error {
		if slices.Contains(choices, s) {
			return nil
		}
		return Want("want %s", OrList(choices))
	})
}

// AbsoluteURL is a URL setting; empty is unset. example is shown when a
// value is refused.
func AbsoluteURL[C any](target func(*C) *string, example string) Parse[C] {
	return Text(target, func(s string) error {
		if s == "" {
			return nil
		}
		if p, err := url.Parse(s); err != nil || p.Scheme == "" || p.Host == "" {
			return Want("want an absolute URL such as %s", example)
		}
		return nil
	})
}

// ReadInt reads a whole number: a YAML integer, or text.
func ReadInt(v Value) (int, bool) {
	if v.Typed("!!int") {
		var n int
		return n, v.node.Decode(&n) == nil
	}
	if v.node != nil && !v.Typed("!!str") {
		return 0, false
	}
	s, _ := v.Scalar()
	n, err := strconv.Atoi(strings.TrimSpace(s))
	return n, err == nil
}

// Whole is an integer setting of at least minimum.
func Whole[C any](target func(*C) *int, minimum int) Parse[C] {
	return func(c *C, v Value) error {
		n, ok := ReadInt(v)
		if !ok || n < minimum {
			return Want("want a whole number of at least %d", minimum)
		}
		*target(c) = n
		return nil
	}
}

// Boolean is a true/false setting: a YAML boolean, or text.
func Boolean[C any](target func(*C) *bool) Parse[C] {
	return func(c *C, v Value) error {
		if v.Typed("!!bool") {
			return v.node.Decode(target(c))
		}
		s, ok := v.Scalar()
		if !ok || (v.node != nil && !v.Typed("!!str")) {
			return Want("want true or false")
		}
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return Want("want true or false")
		}
		*target(c) = b
		return nil
	}
}

// ReadFloat reads a number: a YAML float or integer, or text. empty is
// true for empty text, which leaves the setting unset.
func ReadFloat(v Value) (f float64, empty, ok bool) {
	if v.Typed("!!float", "!!int") {
		return f, false, v.node.Decode(&f) == nil
	}
	s, ok := v.Scalar()
	if !ok || (v.node != nil && !v.Typed("!!str")) {
		return 0, false, false
	}
	if strings.TrimSpace(s) == "" {
		return 0, true, true
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 32)
	return f, false, err == nil
}

// ReadDuration reads a Go duration. YAML has no duration type: it is
// written as text ("800ms"), or as 0.
func ReadDuration(v Value) (time.Duration, bool) {
	s, ok := v.Scalar()
	if !ok || (v.node != nil && !v.Typed("!!str", "!!int")) {
		return 0, false
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	return d, err == nil
}

// Duration is a positive duration setting; zero is accepted when
// allowZero (it turns the thing off).
func Duration[C any](target func(*C) *time.Duration, allowZero bool) Parse[C] {
	return func(c *C, v Value) error {
		d, ok := ReadDuration(v)
		if !ok || d < 0 || (!allowZero && d == 0) {
			return Want("want a positive Go duration such as 800ms, 30s or 2m")
		}
		*target(c) = d
		return nil
	}
}

// List is a setting of several ids: a YAML list or a comma list; empty
// items are dropped.
func List[C any](target func(*C) *[]string) Parse[C] {
	return func(c *C, v Value) error {
		items, ok := v.List()
		if !ok {
			return Want("want a comma list or a YAML list of ids")
		}
		var out []string
		for _, id := range items {
			if id = strings.TrimSpace(id); id != "" {
				out = append(out, id)
			}
		}
		*target(c) = out
		return nil
	}
}

// JSONObject is a JSON object setting: JSON text, or a YAML map. A map
// goes through JSON so that the object holds the same values (numbers as
// float64) whichever way it was given. Empty text leaves it unset.
func JSONObject[C any](target func(*C) *map[string]any) Parse[C] {
	refused := Want(`want a JSON object such as {"enable_thinking": false}`)
	return func(c *C, v Value) error {
		var raw []byte
		switch {
		case v.node != nil && v.node.Kind == yaml.MappingNode:
			var m map[string]any
			if err := v.node.Decode(&m); err != nil {
				return refused
			}
			b, err := json.Marshal(m)
			if err != nil {
				return refused
			}
			raw = b
		default:
			s, ok := v.Scalar()
			if !ok {
				return refused
			}
			if strings.TrimSpace(s) == "" {
				return nil
			}
			raw = []byte(s)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil || m == nil {
			return refused
		}
		*target(c) = m
		return nil
	}
}

// Custom is a setting read from its text by read, which says what it
// wants when the text is refused.
func Custom[C, T any](target func(*C) *T, read func(string) (T, error)) Parse[C] {
	return func(c *C, v Value) error {
		s, ok := v.Scalar()
		if !ok {
			return Want("want a single value, not a list or map")
		}
		x, err := read(s)
		if err != nil {
			return err
		}
		*target(c) = x
		return nil
	}
}

// Optional is p, except that empty text leaves the field as it was (its
// default, which may follow another setting).
func Optional[C any](p Parse[C]) Parse[C] {
	return func(c *C, v Value) error {
		if s, ok := v.Scalar(); ok && strings.TrimSpace(s) == "" {
			return nil
		}
		return p(c, v)
	}
}

// Number is a setting of a number from lo to hi, kept as a float32 that
// is nil while unset; empty text leaves it unset.
func Number[C any](target func(*C) **float32, lo, hi float64) Parse[C] {
	return func(c *C, v Value) error {
		f, empty, ok := ReadFloat(v)
		if empty {
			return nil
		}
		if !ok || f < lo || f > hi {
			return Want("want a number from %g to %g", lo, hi)
		}
		x := float32(f)
		*target(c) = &x
		return nil
	}
}

// DurationAtLeast is a positive duration setting of at least minimum.
func DurationAtLeast[C any](target func(*C) *time.Duration, minimum time.Duration) Parse[C] {
	return func(c *C, v Value) error {
		d, ok := ReadDuration(v)
		if !ok || d <= 0 {
			return Want("want a positive Go duration such as 800ms, 30s or 2m")
		}
		if d < minimum {
			return Want("want at least %s", DurationText(minimum))
		}
		*target(c) = d
		return nil
	}
}

// QualifiedIDs is a list of platform-qualified ids ("telegram:123"): a
// YAML list or a comma list, empty items dropped. Each id without a
// platform is reported on its own, and the others are kept.
func QualifiedIDs[C any](target func(*C) *[]string, example string) Parse[C] {
	return func(c *C, v Value) error {
		items, ok := v.List()
		if !ok {
			return Want("want a comma list or a YAML list of ids")
		}
		var ids []string
		var errs []error
		for _, id := range items {
			id = strings.TrimSpace(id)
			if id == "" {
				continue
			}
			if p, u, ok := strings.Cut(id, ":"); !ok || p == "" || u == "" {
				errs = append(errs, &WantError{Want: "want platform-qualified user ids such as " + example, Item: &id})
				continue
			}
			ids = append(ids, id)
		}
		*target(c) = ids
		return errors.Join(errs...)
	}
}

// ExistingDir is a check of Text: empty, or a directory that exists;
// what names what the directory holds ("prompt templates").
func ExistingDir(what string) func(string) error {
	return func(dir string) error {
		if dir == "" {
			return nil
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return Want("want an existing directory of %s", what)
		}
		return nil
	}
}
