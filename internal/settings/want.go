package settings

import (
	"errors"
	"fmt"
	"strings"
)

// WantError says what a setting wants; Describe adds the name and the
// value given ("AIRI_HISTORY=\"x\": want ...").
type WantError struct {
	Want string
	// Item, when set, is the part of the value that was wrong (one id of
	// a list) and is shown instead of the whole value.
	Item *string
}

func (e *WantError) Error() string { return e.Want }

// Want is a *WantError of the formatted text.
func Want(format string, args ...any) error {
	return &WantError{Want: fmt.Sprintf(format, args...)}
}

// Describe turns the error of a setting's parse function into the lines
// reported: NAME="value": want ... for each *WantError, or NAME: ... for
// an error that must not echo the value (one holding a password). A
// joined error gives one line per part.
func Describe(name string, v Value, err error) error {
	var parts []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		parts = j.Unwrap()
	} else {
		parts = []error{err}
	}
	var out []error
	for _, e := range parts {
		var w *WantError
		if errors.As(e, &w) {
			shown := v.String()
			if w.Item != nil {
				shown = *w.Item
			}
			out = append(out, fmt.Errorf("%s=%q: %s", name, shown, w.Want))
			continue
		}
		out = append(out, fmt.Errorf("%s: %w", name, e))
	}
	return errors.Join(out...)
}

// OrList writes "a, b or c".
func OrList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
