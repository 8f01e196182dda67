package tokens

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The o200k pre-tokenizer splits text into pieces before byte-pair merging
// with this pattern, run by a backtracking engine (the leftmost alternative
// that matches wins; greedy loops give back one character at a time):
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}
//	| ?[^\s\p{L}\p{N}]+[\r\n/]*
//	|\s*[\r\n]+
//	|\s+(?!\S)
//	|\s+
//
// pieceEnd reproduces, without allocating, what the engine the reference
// counter uses (regexp2's generated matcher) does with it, two quirks
// included: DEL (U+007F) is in neither negated class, so it matches no
// alternative and is dropped; and \s*[\r\n]+ gives its whitespace back up
// to the first line break of the run, not the last. (?i:'s) also takes
// 'ſ, the long s, as regexp2 folds case the .NET way.

// Character classes of the pattern, as bits of a class mask.
const (
	cUpper  = 1 << iota // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	cLower              // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	cNumber             // \p{N}
	cSpace              // \s, as unicode.IsSpace
	cPrefix             // [^\r\n\p{L}\p{N}], DEL excepted
	cPunct              // [^\s\p{L}\p{N}], DEL excepted
)

// classOf returns the class mask of r.
func classOf(r rune) uint8 {
	switch {
	case r == 0x7f:
		return 0
	case unicode.Is(unicode.Lo, r), unicode.Is(unicode.Lm, r):
		return cUpper | cLower
	case unicode.Is(unicode.Ll, r):
		return cLower
	case unicode.Is(unicode.Lu, r), unicode.Is(unicode.Lt, r):
		return cUpper
	case unicode.Is(unicode.M, r):
		return cUpper | cLower | cPrefix | cPunct
	case unicode.Is(unicode.N, r):
		return cNumber
	case r == '\r' || r == '\n':
		return cSpace
	case unicode.IsSpace(r):
		return cSpace | cPrefix
	default:
		return cPrefix | cPunct
	}
}

// classes maps ASCII bytes to their class masks.
type classes [utf8.RuneSelf]uint8

func newClasses() *classes {
	var t classes
	for r := range rune(utf8.RuneSelf) {
		t[r] = classOf(r)
	}
	return &t
}

// at returns the class mask and the size of the character at s[i:].
func (t *classes) at(s string, i int) (uint8, int) {
	if b := s[i]; b < utf8.RuneSelf {
		return t[b], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return classOf(r), n
}

// run returns the end of the run of characters of class mask want that
// starts at i.
func (t *classes) run(s string, i int, want uint8) int {
	for i < len(s) {
		c, n := t.at(s, i)
		if c&want == 0 {
			break
		}
		i += n
	}
	return i
}

// pieceEnd returns the end of the piece that starts at s[i], or -1 when
// none does and the character at i is skipped.
func (t *classes) pieceEnd(s string, i int) int {
	c0, n0 := t.at(s, i)
	if c0&(cUpper|cLower|cPrefix) != 0 {
		if e := t.lowerEnding(s, i, c0, n0); e >= 0 {
			return e
		}
		if e := t.upperLeading(s, i, c0, n0); e >= 0 {
			return e
		}
	}
	if c0&cNumber != 0 {
		e := i + n0
		for k := 1; k < 3 && e < len(s); k++ {
			c, n := t.at(s, e)
			if c&cNumber == 0 {
				break
			}
			e += n
		}
		return e
	}
	if j := i + btoi(s[i] == ' '); j < len(s) {
		if c, _ := t.at(s, j); c&cPunct != 0 {
			e := t.run(s, j, cPunct)
			for e < len(s) && (s[e] == '\r' || s[e] == '\n' || s[e] == '/') {
				e++
			}
			return e
		}
	}
	if c0&cSpace == 0 {
		return -1
	}
	// \s*[\r\n]+: up to the first line break of the run, and the breaks
	// that follow it.
	for j := i; j < len(s); {
		if s[j] == '\r' || s[j] == '\n' {
			j++
			for j < len(s) && (s[j] == '\r' || s[j] == '\n') {
				j++
			}
			return j
		}
		c, n := t.at(s, j)
		if c&cSpace == 0 {
			break
		}
		j += n
	}
	// \s+(?!\S) leaves the last space of a run to the word after it;
	// \s+ takes a single one.
	j, last := i+n0, i
	for j < len(s) {
		c, n := t.at(s, j)
		if c&cSpace == 0 {
			break
		}
		last = j
		j += n
	}
	if j == len(s) || last == i {
		return j
	}
	return last
}

// lowerEnding matches the first alternative: an optional prefix
// character, upper-case-like letters, then at least one lower-case-like
// one, then a contraction. It returns -1 when it does not match.
func (t *classes) lowerEnding(s string, i int, c0 uint8, n0 int) int {
	for _, a := range prefixed(i, c0, n0) {
		if a < 0 {
			continue
		}
		u := t.run(s, a, cUpper)
		// Give upper-case-like characters back one at a time until a
		// lower-case-like one starts the next loop.
		for q := u; ; {
			if q < len(s) {
				if c, _ := t.at(s, q); c&cLower != 0 {
					return contraction(s, t.run(s, q, cLower))
				}
			}
			if q == a {
				break
			}
			_, n := utf8.DecodeLastRuneInString(s[a:q])
			q -= n
		}
	}
	return -1
}

// upperLeading matches the second alternative: an optional prefix
// character, at least one upper-case-like letter, lower-case-like ones,
// then a contraction. It returns -1 when it does not match.
func (t *classes) upperLeading(s string, i int, c0 uint8, n0 int) int {
	for _, a := range prefixed(i, c0, n0) {
		if a < 0 {
			continue
		}
		if u := t.run(s, a, cUpper); u > a {
			return contraction(s, t.run(s, u, cLower))
		}
	}
	return -1
}

// prefixed returns where the letters may start, in the order the
// engine tries them: after the optional prefix character at i, then at i;
// -1 stands for no place.
func prefixed(i int, c0 uint8, n0 int) [2]int {
	if c0&cPrefix != 0 {
		return [2]int{i + n0, i}
	}
	return [2]int{i, -1}
}

// contraction returns the end of the optional (?i:'s|'t|'re|'ve|'m|'ll|'d)
// at s[e:].
func contraction(s string, e int) int {
	if e+1 >= len(s) || s[e] != '\'' {
		return e
	}
	switch s[e+1] {
	case 'S', 'T', 's', 't', 'M', 'm', 'D', 'd':
		return e + 2
	case 'R', 'r', 'V', 'v':
		if e+2 < len(s) && s[e+2]|0x20 == 'e' {
			return e + 3
		}
	case 'L', 'l':
		if e+2 < len(s) && s[e+2]|0x20 == 'l' {
			return e + 3
		}
	case "ſ"[0]:
		if strings.HasPrefix(s[e+1:], "ſ") {
			return e + 1 + len("ſ")
		}
	}
	return e
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
