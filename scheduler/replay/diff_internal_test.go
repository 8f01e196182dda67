package replay

import (
	"slices"
	"strings"
	"testing"
)

// FuzzLineOps checks that the edit script rebuilds both sides and keeps
// every line the two have in common at the ends.
func FuzzLineOps(f *testing.F) {
	f.Add("a\nb\nc", "a\nx\nc")
	f.Add("", "x\ny")
	f.Add("same\nsame\nsame", "same\nother\nsame\nsame")
	f.Fuzz(func(t *testing.T, x, y string) {
		a, b := strings.Split(x, "\n"), strings.Split(y, "\n")
		var gotA, gotB []string
		for _, o := range lineOps(a, b) {
			switch o.kind {
			case ' ':
				gotA, gotB = append(gotA, o.text), append(gotB, o.text)
			case '-':
				gotA = append(gotA, o.text)
			case '+':
				gotB = append(gotB, o.text)
			default:
				t.Fatalf("op %q", o.kind)
			}
		}
		if !slices.Equal(gotA, a) || !slices.Equal(gotB, b) {
			t.Fatalf("ops rebuild %q and %q from %q and %q", gotA, gotB, a, b)
		}
		if (Unified(a, b, "a", "b", 3) == "") != slices.Equal(a, b) {
			t.Fatalf("Unified says equal=%v for %q and %q", Unified(a, b, "a", "b", 3) == "", a, b)
		}
	})
}
