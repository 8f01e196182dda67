package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// value is a setting's value as given: text from the environment, or a
// node of the YAML file, decoded by its YAML type (a number, a boolean, a
// list, a map) rather than printed back into text.
type value struct {
	text string
	// node is the value in the YAML file; nil for the environment.
	node *yaml.Node
}

// String is the value as the user wrote it, for error messages.
func (v value) String() string {
	switch {
	case v.node == nil:
		return v.text
	case v.node.Kind == yaml.ScalarNode:
		return v.node.Value
	}
	n := *v.node
	n.Style = yaml.FlowStyle
	b, err := yaml.Marshal(&n)
	if err != nil {
		return "(" + v.node.ShortTag() + ")"
	}
	return strings.TrimSpace(string(b))
}

// scalar is the text of a single value: the environment's text, or a
// YAML scalar's literal text (so `0123` stays 0123, not 83).
func (v value) scalar() (string, bool) {
	if v.node == nil {
		return v.text, true
	}
	if v.node.Kind != yaml.ScalarNode {
		return "", false
	}
	return v.node.Value, true
}

// typed reports whether v is a YAML scalar of the YAML type tag ("!!int",
// "!!bool", "!!float"), to be decoded as that type. A quoted YAML string
// is read as the environment's text would be.
func (v value) typed(tags ...string) bool {
	return v.node != nil && v.node.Kind == yaml.ScalarNode && slices.Contains(tags, v.node.ShortTag())
}

// list is the items of a list setting: a YAML sequence, or a comma list.
func (v value) list() ([]string, bool) {
	if v.node != nil && v.node.Kind == yaml.SequenceNode {
		out := make([]string, 0, len(v.node.Content))
		for _, item := range v.node.Content {
			if item.Kind != yaml.ScalarNode {
				return nil, false
			}
			out = append(out, item.Value)
		}
		return out, true
	}
	s, ok := v.scalar()
	if !ok {
		return nil, false
	}
	return strings.Split(s, ","), true
}

// wantError says what a setting wants; the settings table adds the name
// and the value given ("AIRI_HISTORY=\"x\": want ...").
type wantError struct {
	want string
	// item, when set, is the part of the value that was wrong (one id of
	// a list) and is shown instead of the whole value.
	item *string
}

func (e *wantError) Error() string { return e.want }

func want(format string, args ...any) error {
	return &wantError{want: fmt.Sprintf(format, args...)}
}

// The kinds of settings below make a setting's parse function from its
// target (where the value goes in the config) and its checks.

// text is a string setting, trimmed; check, when set, refuses bad values.
func text(target func(*config) *string, check func(string) error) func(*config, value) error {
	return func(c *config, v value) error {
		s, ok := v.scalar()
		if !ok {
			return want("want a single value, not a list or map")
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

// oneOf is a string setting that takes one of choices.
func oneOf(target func(*config) *string, choices ...string) func(*config, value) error {
	return text(target, func(s string) error {
		if slices.Contains(choices, s) {
			return nil
		}
		return want("want %s", orList(choices))
	})
}

// orList writes "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// absoluteURL is a URL setting; empty is unset.
func absoluteURL(target func(*config) *string, example string) func(*config, value) error {
	return text(target, func(s string) error {
		if s == "" {
			return nil
		}
		if p, err := url.Parse(s); err != nil || p.Scheme == "" || p.Host == "" {
			return want("want an absolute URL such as %s", example)
		}
		return nil
	})
}

// readInt reads a whole number: a YAML integer, or text.
func readInt(v value) (int, bool) {
	if v.typed("!!int") {
		var n int
		return n, v.node.Decode(&n) == nil
	}
	if v.node != nil && !v.typed("!!str") {
		return 0, false
	}
	s, _ := v.scalar()
	n, err := strconv.Atoi(strings.TrimSpace(s))
	return n, err == nil
}

// whole is an integer setting of at least minimum.
func whole(target func(*config) *int, minimum int) func(*config, value) error {
	return func(c *config, v value) error {
		n, ok := readInt(v)
		if !ok || n < minimum {
			return want("want a whole number of at least %d", minimum)
		}
		*target(c) = n
		return nil
	}
}

// boolean is a true/false setting: a YAML boolean, or text.
func boolean(target func(*config) *bool) func(*config, value) error {
	return func(c *config, v value) error {
		if v.typed("!!bool") {
			return v.node.Decode(target(c))
		}
		s, ok := v.scalar()
		if !ok || (v.node != nil && !v.typed("!!str")) {
			return want("want true or false")
		}
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return want("want true or false")
		}
		*target(c) = b
		return nil
	}
}

// readDuration reads a Go duration. YAML has no duration type: it is
// written as text ("800ms"), or as 0.
func readDuration(v value) (time.Duration, bool) {
	s, ok := v.scalar()
	if !ok || (v.node != nil && !v.typed("!!str", "!!int")) {
		return 0, false
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	return d, err == nil
}

// duration is a positive duration setting; zero is accepted when
// allowZero (it turns the thing off).
func duration(target func(*config) *time.Duration, allowZero bool) func(*config, value) error {
	return func(c *config, v value) error {
		d, ok := readDuration(v)
		if !ok || d < 0 || (!allowZero && d == 0) {
			return want("want a positive Go duration such as 800ms, 30s or 2m")
		}
		*target(c) = d
		return nil
	}
}

// list is a setting of several ids: a YAML list or a comma list; empty
// items are dropped.
func list(target func(*config) *[]string) func(*config, value) error {
	return func(c *config, v value) error {
		items, ok := v.list()
		if !ok {
			return want("want a comma list or a YAML list of ids")
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

// jsonObject reads LLM_EXTRA_BODY: JSON text, or a YAML map. A map goes
// through JSON so that the body holds the same values (numbers as
// float64) whichever way it was given.
func jsonObject(target func(*config) *map[string]any) func(*config, value) error {
	refused := want(`want a JSON object such as {"enable_thinking": false}`)
	return func(c *config, v value) error {
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
			s, ok := v.scalar()
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

// custom is a setting read from its text by read, which says what it
// wants when the text is refused.
func custom[T any](target func(*config) *T, read func(string) (T, error)) func(*config, value) error {
	return func(c *config, v value) error {
		s, ok := v.scalar()
		if !ok {
			return want("want a single value, not a list or map")
		}
		x, err := read(s)
		if err != nil {
			return err
		}
		*target(c) = x
		return nil
	}
}

// describe turns the error of a setting's parse function into the lines
// reported: NAME="value": want ..., or NAME: ... for an error that must
// not echo the value.
func (s setting) describe(v value, err error) error {
	var parts []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		parts = j.Unwrap()
	} else {
		parts = []error{err}
	}
	var out []error
	for _, e := range parts {
		var w *wantError
		if errors.As(e, &w) {
			shown := v.String()
			if w.item != nil {
				shown = *w.item
			}
			out = append(out, fmt.Errorf("%s=%q: %s", s.name, shown, w.want))
			continue
		}
		out = append(out, fmt.Errorf("%s: %w", s.name, e))
	}
	return errors.Join(out...)
}
