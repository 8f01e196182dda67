package parse

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// sig is the last significant token the extent scanner saw.
type sig uint8

const (
	sigNone sig = iota
	sigOpenObj
	sigOpenArr
	sigComma
	sigColon
	sigKey   // a complete quoted key
	sigValue // a complete quoted value
	sigClose
	sigBare // an unquoted token (number, literal, unquoted key or word)
)

// extent describes where a bracketed value that starts in an answer ends.
type extent struct {
	end int // index after the closing bracket, or len(text) when cut
	// cut reports that the text ended before the value was closed.
	cut bool
	// depth is the number of containers still open when the text ended.
	depth int
	// dropLast asks to drop the innermost last member or element: the
	// text ended inside its key, between key and value, or inside a
	// number or literal that may be incomplete.
	dropLast bool
	// cutString reports that the text ended inside a quoted value.
	cutString bool
	// strStart is where the content of the string the text ended in
	// starts (after its opening quote), counted from the start of the
	// value, when cutString or cut in a key.
	strStart int
	// cutKey reports that the text ended inside a key, after it or after
	// its colon: the member's value was never begun.
	cutKey bool
	// cutBare reports that the text ended in an unquoted token, a number
	// or literal that is whole if the model stopped there itself.
	cutBare bool
	// quotes reports single or typographic quotes used as delimiters.
	quotes bool
	// closers closes the containers still open when the text ended.
	closers string
}

// isDelimAfter reports whether the text after a candidate closing quote
// at i looks like the end of a string: a structural character, a line
// end, or the end of the text.
func isDelimAfter(s string, i int) bool {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\r':
			i++
			continue
		case ',', ':', '}', ']', '\n':
			return true
		}
		return false
	}
	return true
}

// scanExtent finds the end of the object or array that starts at
// text[start]. It understands double, single and typographic quotes,
// backslash escapes (also outside strings, for escaped JSON) and comments,
// so braces inside strings never count.
func scanExtent(text string, start int) extent {
	var stack [maxDepth]byte
	depth := 0
	last := sigNone
	i := start
	ext := extent{}
	for i < len(text) {
		c := text[i]
		switch c {
		case '{', '[':
			if depth == maxDepth {
				return extent{end: len(text), cut: true, depth: depth}
			}
			stack[depth] = c
			depth++
			if c == '{' {
				last = sigOpenObj
			} else {
				last = sigOpenArr
			}
			i++
		case '}', ']':
			if depth > 0 {
				depth--
			}
			i++
			last = sigClose
			if depth == 0 {
				ext.end = i
				return ext
			}
		case ',':
			last = sigComma
			i++
		case ':':
			last = sigColon
			i++
		case ' ', '\t', '\n', '\r':
			i++
		case '\\':
			// Escaped JSON written as text: \" is a quote.
			if i+1 < len(text) && text[i+1] == '"' {
				end, ok := scanEscapedString(text, i+2)
				isKey := depth > 0 && stack[depth-1] == '{' && (last == sigOpenObj || last == sigComma)
				if !ok {
					ext.closers = closersOf(stack[:depth])
					ext.strStart = i + 2 - start
					return cutAt(text, depth, isKey, true, ext)
				}
				i = end
				if isKey {
					last = sigKey
				} else {
					last = sigValue
				}
				continue
			}
			i += 2
		case '/':
			if i+1 < len(text) && text[i+1] == '/' {
				nl := strings.IndexByte(text[i:], '\n')
				if nl < 0 {
					i = len(text)
				} else {
					i += nl
				}
				continue
			}
			if i+1 < len(text) && text[i+1] == '*' {
				e := strings.Index(text[i+2:], "*/")
				if e < 0 {
					i = len(text)
				} else {
					i += e + 4
				}
				continue
			}
			last = sigBare
			i++
		default:
			isKey := depth > 0 && stack[depth-1] == '{' && (last == sigOpenObj || last == sigComma)
			atValueStart := last == sigOpenObj || last == sigOpenArr || last == sigComma || last == sigColon
			quote, size := quoteAt(text, i)
			if quote != 0 && (quote == '"' || atValueStart) {
				if quote != '"' {
					ext.quotes = true
				}
				end, ok := scanString(text, i+size, quote)
				if !ok {
					ext.closers = closersOf(stack[:depth])
					ext.strStart = i + size - start
					return cutAt(text, depth, isKey, !isKey, ext)
				}
				i = end
				if isKey {
					last = sigKey
				} else {
					last = sigValue
				}
				continue
			}
			last = sigBare
			i++
		}
	}
	ext.end = len(text)
	ext.cut = true
	ext.depth = depth
	ext.closers = closersOf(stack[:depth])
	switch last {
	case sigColon, sigKey:
		ext.dropLast, ext.cutKey = true, depth > 0 && stack[depth-1] == '{'
	case sigBare:
		ext.dropLast, ext.cutBare = true, true
	}
	return ext
}

// closersOf returns the brackets that close the open containers.
func closersOf(open []byte) string {
	b := make([]byte, len(open))
	for i, c := range open {
		if c == '{' {
			b[len(open)-1-i] = '}'
		} else {
			b[len(open)-1-i] = ']'
		}
	}
	return string(b)
}

func cutAt(text string, depth int, isKey, inValue bool, ext extent) extent {
	ext.end = len(text)
	ext.cut = true
	ext.depth = depth
	if isKey || !inValue {
		ext.dropLast, ext.cutKey = true, isKey
	} else {
		ext.cutString = true
	}
	return ext
}

// quoteAt reports the quote character at text[i] (a straight or
// typographic double or single quote) and its size in bytes.
func quoteAt(text string, i int) (rune, int) {
	switch c := text[i]; c {
	case '"', '\'':
		return rune(c), 1
	case 0xE2:
		if strings.HasPrefix(text[i:], "\u201C") || strings.HasPrefix(text[i:], "\u201D") {
			return '\u201C', 3
		}
		if strings.HasPrefix(text[i:], "\u2018") || strings.HasPrefix(text[i:], "\u2019") {
			return '\u2018', 3
		}
	}
	return 0, 0
}

// scanString returns the index after the closing quote of a string whose
// content starts at i. A double-quoted string closes at the next
// unescaped straight quote; other quotes close only where a delimiter
// follows, so apostrophes inside words stay content.
func scanString(text string, i int, quote rune) (int, bool) {
	for i < len(text) {
		c := text[i]
		if c == '\\' {
			i += 2
			continue
		}
		switch quote {
		case '"':
			if c == '"' {
				return i + 1, true
			}
		case '\'':
			if c == '\'' && isDelimAfter(text, i+1) {
				return i + 1, true
			}
		default:
			if q, size := quoteAt(text, i); q == quote && isDelimAfter(text, i+size) {
				return i + size, true
			}
		}
		i++
	}
	return len(text), false
}

// scanEscapedString returns the index after the closing \" of an escaped
// string whose content starts at i.
func scanEscapedString(text string, i int) (int, bool) {
	for i < len(text) {
		if text[i] == '\\' {
			if i+1 < len(text) && text[i+1] == '"' {
				return i + 2, true
			}
			i += 2
			continue
		}
		i++
	}
	return len(text), false
}

// requote rewrites single-quoted and typographic-quoted strings as JSON
// strings, using the same closing rule as scanString, so that an
// apostrophe inside a word does not end the string.
func requote(text string) string {
	var b strings.Builder
	b.Grow(len(text) + 16)
	last := sigNone
	i := 0
	for i < len(text) {
		c := text[i]
		switch c {
		case '{':
			last = sigOpenObj
		case '[':
			last = sigOpenArr
		case ',':
			last = sigComma
		case ':':
			last = sigColon
		case '}', ']':
			last = sigClose
		case ' ', '\t', '\n', '\r':
		default:
			quote, size := quoteAt(text, i)
			atValueStart := last == sigOpenObj || last == sigOpenArr || last == sigComma || last == sigColon
			if quote == '"' {
				end, _ := scanString(text, i+1, '"')
				b.WriteString(text[i:end])
				i = end
				last = sigValue
				continue
			}
			if quote != 0 && atValueStart {
				end, ok := scanString(text, i+size, quote)
				inner := text[i+size : end]
				if ok {
					_, qs := lastQuote(text[:end])
					inner = text[i+size : end-qs]
				}
				b.WriteByte('"')
				for j := 0; j < len(inner); j++ {
					switch ch := inner[j]; ch {
					case '"':
						b.WriteString(`\"`)
					case '\\':
						if j+1 < len(inner) && inner[j+1] == '\'' {
							b.WriteByte('\'')
							j++
						} else {
							b.WriteByte('\\')
						}
					default:
						b.WriteByte(ch)
					}
				}
				if ok {
					b.WriteByte('"')
				}
				i = end
				last = sigValue
				continue
			}
			last = sigBare
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// lastQuote reports the size of the quote that ends s.
func lastQuote(s string) (rune, int) {
	r, size := utf8.DecodeLastRuneInString(s)
	return r, size
}

// shieldOpen and shieldClose delimit a placeholder: private-use characters that
// answers do not contain (shieldStrings checks).
const (
	shieldOpen  = "\uE000"
	shieldClose = "\uE001"
)

// shieldStrings replaces every well-formed double-quoted string literal
// that is followed by a delimiter with a numbered placeholder literal, and
// returns the originals. It stops at the first literal it cannot read, so
// that what follows is left to the repair as written; whole reports that
// it did not stop.
func shieldStrings(text string) (shielded string, originals []string, whole bool) {
	if strings.Contains(text, shieldOpen) || strings.Contains(text, shieldClose) {
		return text, nil, false
	}
	var b strings.Builder
	last := 0
	whole = true
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '"':
		case '/':
			// Skip comments so that quotes inside them are not taken for
			// strings.
			if i+1 < len(text) && text[i+1] == '/' {
				if nl := strings.IndexByte(text[i:], '\n'); nl >= 0 {
					i += nl
					continue
				}
				i = len(text)
				continue
			}
			if i+1 < len(text) && text[i+1] == '*' {
				if e := strings.Index(text[i+2:], "*/"); e >= 0 {
					i += e + 3
					continue
				}
				i = len(text)
			}
			continue
		default:
			continue
		}
		p := strictParser{s: text, i: i}
		if _, ok := p.str(); !ok || !isDelimAfter(text, p.i) {
			whole = false
			break
		}
		if b.Len() == 0 {
			b.Grow(len(text))
		}
		b.WriteString(text[last:i])
		b.WriteString(`"` + shieldOpen)
		b.WriteString(strconv.Itoa(len(originals)))
		b.WriteString(shieldClose + `"`)
		originals = append(originals, text[i:p.i])
		last = p.i
		i = p.i - 1
	}
	if len(originals) == 0 {
		return text, nil, whole
	}
	b.WriteString(text[last:])
	return b.String(), originals, whole
}

// unshieldStrings puts the original literals back; it reports false when
// the repair changed a placeholder.
func unshieldStrings(text string, originals []string) (string, bool) {
	var b strings.Builder
	b.Grow(len(text) + 64)
	for {
		k := strings.Index(text, `"`+shieldOpen)
		if k < 0 {
			break
		}
		rest := text[k+1+len(shieldOpen):]
		e := strings.Index(rest, shieldClose+`"`)
		if e < 0 {
			return "", false
		}
		n, err := strconv.Atoi(rest[:e])
		if err != nil || n < 0 || n >= len(originals) {
			return "", false
		}
		b.WriteString(text[:k])
		b.WriteString(originals[n])
		text = rest[e+len(shieldClose)+1:]
	}
	b.WriteString(text)
	out := b.String()
	if strings.Contains(out, shieldOpen) || strings.Contains(out, shieldClose) {
		return "", false
	}
	return out, true
}
