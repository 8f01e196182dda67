// Package term makes text safe to print on a terminal: chat text shown by
// airi chat and by the operator commands (status, channels, memory) must
// not move the cursor, retitle the window or hide what follows.
package term

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable returns s without terminal escape sequences (ANSI CSI, OSC,
// DCS and the like) and control characters other than tab and line feed;
// line endings become "\n" and invalid UTF-8 the replacement character.
func Printable(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\x1b':
			i += escapeLen(s[i:])
			continue
		case r == '\x9b', r == '\x9d', r == '\x90', r == '\x98', r == '\x9e', r == '\x9f':
			// The 8-bit forms of CSI, OSC, DCS, SOS, PM and APC.
			i += n + sequenceBody(s[i+n:], r == '\x9b')
			continue
		case r == '\r':
			if !strings.HasPrefix(s[i+n:], "\n") {
				b.WriteByte('\n')
			}
		case r == '\n', r == '\t':
			b.WriteRune(r)
		case unicode.IsControl(r):
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// escapeLen returns the length of the escape sequence that starts s (with
// ESC): a CSI "ESC [ ... final", a string sequence "ESC ] ... BEL|ESC \\"
// (and the DCS, SOS, PM, APC ones), or ESC and one more character.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		return 2 + sequenceBody(s[2:], true)
	case ']', 'P', 'X', '^', '_':
		return 2 + sequenceBody(s[2:], false)
	}
	_, n := utf8.DecodeRuneInString(s[1:])
	return 1 + n
}

// sequenceBody returns the length of the body of an escape sequence after
// its introducer: for a CSI, parameter and intermediate bytes up to the
// final byte; for a string sequence, everything up to BEL or ST (ESC \\ or
// 0x9c). An unterminated sequence runs to the end of s.
func sequenceBody(s string, csi bool) int {
	if csi {
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c >= 0x40 && c <= 0x7e: // the final byte
				return i + 1
			case c < 0x20 || c > 0x7e:
				// Not a CSI byte: the sequence is broken; drop what was read.
				return i
			}
		}
		return len(s)
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\a', r == '\x9c':
			return i + n
		case r == '\x1b' && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		}
		i += n
	}
	return len(s)
}
