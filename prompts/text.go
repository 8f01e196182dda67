package prompts

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bounds of chat data shown to the model. A name or title longer than its
// bound is cut with an ellipsis wherever it appears (system message,
// history, state message, action results), so that one person's 10 KB
// display name cannot grow every request.
const (
	MaxNameRunes  = 48
	MaxTitleRunes = 80
	// MaxMessageRunes bounds one new message shown to the model (in the
	// state message or a read result): longer text is cut with a marker.
	MaxMessageRunes = 4000
	// MaxHistoryRunes bounds one message of the history window; the history
	// is context, and a few long messages must not crowd out the rest.
	MaxHistoryRunes = 1000
)

// Clip folds the white space of s into single spaces and cuts it to n
// runes, the last one an ellipsis when something was cut.
func Clip(s string, n int) string {
	if strings.IndexFunc(s, isFoldable) >= 0 || strings.Contains(s, "  ") {
		s = strings.Join(strings.Fields(s), " ")
	}
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for i = range s {
		if k == n-1 {
			break
		}
		k++
	}
	return s[:i] + "…"
}

// isFoldable reports white space other than a plain space.
func isFoldable(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == 0x85 || r == 0xA0 ||
		(r >= 0x2000 && r <= 0x200A) || r == 0x2028 || r == 0x2029 || r == 0x202F || r == 0x205F || r == 0x3000 || r == 0x1680
}

// Cut returns s when it has at most n runes, else its first n runes
// followed by a marker saying how many characters were left out, so the
// model can tell a cut message from a complete one.
func Cut(s string, n int) string {
	total := utf8.RuneCountInString(s)
	if n < 0 || total <= n {
		return s
	}
	i, k := 0, 0
	for i = range s {
		if k == n {
			break
		}
		k++
	}
	return CutMarked(s[:i], total-n)
}

// CutMarked appends the cut marker for dropped characters to kept.
func CutMarked(kept string, dropped int) string {
	return strings.TrimRight(kept, " \n") + " [… " + strconv.Itoa(dropped) + " more characters cut]"
}
