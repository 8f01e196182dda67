package parse

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// This file holds repairs of answer shapes that a syntax repair cannot
// guess: punctuation typed by CJK input methods, a missing opening brace,
// a missing closing quote before the final brace, unescaped quotes inside
// a string value. Each runs only after the strict parse failed.

// hasWidePunct reports whether text holds a full-width structural
// character (：，｛｝［］＂), as CJK input methods type them.
func hasWidePunct(text string) bool {
	for i := 0; i+2 < len(text); i++ {
		if text[i] != 0xEF {
			continue
		}
		if _, ok := widePunct(text[i:]); ok {
			return true
		}
	}
	return false
}

// widePunct maps the full-width structural character at the start of s
// to its ASCII form.
func widePunct(s string) (byte, bool) {
	if len(s) < 3 || s[0] != 0xEF {
		return 0, false
	}
	switch s[:3] {
	case "\uFF1A":
		return ':', true
	case "\uFF0C":
		return ',', true
	case "\uFF5B":
		return '{', true
	case "\uFF5D":
		return '}', true
	case "\uFF3B":
		return '[', true
	case "\uFF3D":
		return ']', true
	case "\uFF02":
		return '"', true
	}
	return 0, false
}

// anyQuoteAt reports a quote at text[i] that may delimit a string: the
// straight and typographic ones of quoteAt and the full-width '＂'.
func anyQuoteAt(text string, i int) (rune, int) {
	if q, size := quoteAt(text, i); q != 0 {
		return q, size
	}
	if strings.HasPrefix(text[i:], "\uFF02") {
		return '\uFF02', 3
	}
	return 0, 0
}

// isWideDelimAfter is isDelimAfter that also accepts the full-width
// delimiters.
func isWideDelimAfter(s string, i int) bool {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\r':
			i++
			continue
		case ',', ':', '}', ']', '\n':
			return true
		}
		c, ok := widePunct(s[i:])
		return ok && c != '{' && c != '[' && c != '"'
	}
	return true
}

// narrowPunct rewrites the structure of an answer typed with a CJK input
// method as ASCII JSON: full-width braces, brackets, colons and commas
// outside strings become their ASCII forms, and strings delimited by
// typographic, full-width or single quotes become JSON strings. Text
// inside strings is kept as written. A full-width comma counts as
// structure only before what can follow a comma in JSON, and a colon only
// after a key, so that punctuation of prose or of a string whose quotes
// are broken stays as it is. changed reports a rewrite.
func narrowPunct(text string) (out string, changed bool) {
	var b strings.Builder
	b.Grow(len(text))
	last := sigNone
	depth := 0 // objects and lists open, outside strings
	// unclosed holds the quotes no later quote of the same kind closes:
	// once a search failed, every later one would too.
	var unclosed []rune
	for i := 0; i < len(text); {
		c := text[i]
		if c == '"' {
			end, _ := scanString(text, i+1, '"')
			b.WriteString(text[i:end])
			i = end
			last = sigValue
			continue
		}
		atValueStart := depth > 0 && (last == sigOpenObj || last == sigOpenArr || last == sigComma || last == sigColon)
		if q, size := anyQuoteAt(text, i); q != 0 && q != '"' && atValueStart && !slices.Contains(unclosed, q) {
			if end, ok := wideStringEnd(text, i+size, q); ok {
				writeJSONString(&b, text[i+size:end])
				_, qs := utf8.DecodeRuneInString(text[end:])
				i = end + qs
				last = sigValue
				changed = true
				continue
			}
			unclosed = append(unclosed, q)
		}
		if w, ok := widePunct(text[i:]); ok {
			structural := false
			switch w {
			case '{', '[', '}', ']':
				structural = true
			case ':':
				structural = depth > 0 && (last == sigValue || last == sigBare)
			case ',':
				structural = depth > 0 && commaFollows(text, i+3)
			}
			if structural {
				b.WriteByte(w)
				i += 3
				changed = true
				last = sigOf(w)
				depth = max(depth+nesting(w), 0)
				continue
			}
		}
		switch c {
		case '{', '[', ',', ':', '}', ']':
			last = sigOf(c)
			depth = max(depth+nesting(c), 0)
		case ' ', '\t', '\n', '\r':
		default:
			last = sigBare
		}
		if c < utf8.RuneSelf {
			b.WriteByte(c)
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		b.WriteString(text[i : i+size])
		i += size
	}
	if !changed {
		return text, false
	}
	return b.String(), true
}

// nesting is how a structural character changes the nesting depth.
func nesting(c byte) int {
	switch c {
	case '{', '[':
		return 1
	case '}', ']':
		return -1
	}
	return 0
}

// sigOf is the token kind of an ASCII structural character.
func sigOf(c byte) sig {
	switch c {
	case '{':
		return sigOpenObj
	case '[':
		return sigOpenArr
	case ',':
		return sigComma
	case ':':
		return sigColon
	}
	return sigClose
}

// commaFollows reports whether what follows a full-width comma at i is
// what follows a comma in JSON: a quoted key or value, an object or list,
// or the close of one.
func commaFollows(s string, i int) bool {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	if i >= len(s) {
		return false
	}
	switch s[i] {
	case '"', '\'', '{', '[', '}', ']':
		return true
	}
	if q, _ := anyQuoteAt(s, i); q != 0 {
		return true
	}
	w, ok := widePunct(s[i:])
	return ok && w != ':' && w != ','
}

// wideStringEnd finds the closing quote of a string opened by quote whose
// content starts at i: the next quote of the same kind followed by a
// delimiter, ASCII or full-width. A backslash escapes the next byte.
func wideStringEnd(text string, i int, quote rune) (int, bool) {
	for i < len(text) {
		if text[i] == '\\' {
			i += 2
			continue
		}
		if q, size := anyQuoteAt(text, i); q == quote && isWideDelimAfter(text, i+size) {
			return i, true
		}
		i++
	}
	return 0, false
}

// writeJSONString writes s as a JSON string, keeping backslash escapes
// it already has and escaping quotes and line breaks.
func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for j := 0; j < len(s); j++ {
		switch ch := s[j]; ch {
		case '"':
			b.WriteString(`\"`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\\':
			if j+1 < len(s) && s[j+1] == '\'' {
				b.WriteByte('\'')
				j++
			} else if j+1 < len(s) {
				b.WriteByte('\\')
				b.WriteByte(s[j+1])
				j++
			} else {
				b.WriteString(`\\`)
			}
		default:
			b.WriteByte(ch)
		}
	}
	b.WriteByte('"')
}

// openBrace adds the opening brace an answer lacks when it starts with a
// quoted key and a colon ("action": "continue"}), also inside a code
// fence.
func openBrace(text string) (string, bool) {
	s := text
	prefix := ""
	if strings.HasPrefix(s, "```") {
		nl := strings.IndexByte(s, '\n')
		if nl < 0 {
			return text, false
		}
		prefix = s[:nl+1]
		s = strings.TrimLeft(s[nl+1:], " \t\r\n")
	}
	if s == "" || (s[0] != '"' && s[0] != '\'') {
		return text, false
	}
	end, ok := scanString(s, 1, rune(s[0]))
	if !ok || end-2 > 40 || end-2 < 1 {
		return text, false
	}
	for _, c := range []byte(s[1 : end-1]) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return text, false
		}
	}
	j := end
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j >= len(s) || s[j] != ':' {
		return text, false
	}
	// The value must start like a JSON value, so that prose such as
	// "Note": I will wait is left alone.
	j = skipSpace(s, j+1)
	if j >= len(s) || !strings.ContainsRune(`"'{[-0123456789tfn`, rune(s[j])) {
		return text, false
	}
	return prefix + "{" + s, true
}

// closeQuote repairs a candidate whose text ended inside a string because
// the closing quote of its last string was left out right before the
// final braces: {"action":"send_message",...,"content":"see you}. The
// braces the text ends with must be exactly those that close what is
// open, and the string must not hold an unmatched brace of its own (then
// the answer may have been cut off inside a brace of the text).
func closeQuote(cand string, ext extent) (string, bool) {
	if !ext.cutString || ext.strStart <= 0 || ext.strStart > len(cand) || cand[ext.strStart-1] != '"' || ext.closers == "" {
		return "", false
	}
	t := strings.TrimRight(cand, " \t\r\n")
	if strings.HasSuffix(t, "```") {
		t = strings.TrimRight(t[:len(t)-3], " \t\r\n")
	}
	for j := len(ext.closers) - 1; j >= 0; j-- {
		t = strings.TrimRight(t, " \t\r\n")
		if t == "" || t[len(t)-1] != ext.closers[j] {
			return "", false
		}
		t = t[:len(t)-1]
	}
	if len(t) < ext.strStart {
		return "", false
	}
	content := t[ext.strStart:]
	if strings.HasSuffix(content, `\`) && !strings.HasSuffix(content, `\\`) {
		return "", false
	}
	open := 0
	for i := 0; i < len(content); i++ {
		switch content[i] {
		case '{', '[':
			open++
		case '}', ']':
			open--
		}
	}
	if open != 0 {
		return "", false
	}
	return t + `"` + ext.closers, true
}

// escapeInnerQuotes escapes double quotes inside string values that the
// structure shows are not the string's end: a value's closing quote is
// the first one followed by a comma and the next quoted key, or by the
// brace or bracket that closes its container and then the end or more
// structure. {"content":"he said "hi" to me"} becomes
// {"content":"he said \"hi\" to me"}. Keys are read as written. changed
// reports that a quote was escaped.
func escapeInnerQuotes(text string) (string, bool) {
	var stack [maxDepth]byte
	depth := 0
	last := sigNone
	var b strings.Builder
	changed := false
	from := 0 // text before from is already in b
	for i := 0; i < len(text); {
		switch c := text[i]; c {
		case '{', '[':
			if depth == maxDepth {
				return text, false
			}
			stack[depth] = c
			depth++
			last = sigOf(c)
			i++
		case '}', ']':
			if depth > 0 {
				depth--
			}
			last = sigClose
			i++
		case ',', ':':
			last = sigOf(c)
			i++
		case '"':
			top := byte(0)
			if depth > 0 {
				top = stack[depth-1]
			}
			isKey := top == '{' && (last == sigOpenObj || last == sigComma)
			if isKey || last != sigColon && last != sigOpenArr && last != sigComma {
				end, ok := scanString(text, i+1, '"')
				if !ok {
					return text, false
				}
				i = end
				last = sigValue
				if isKey {
					last = sigKey
				}
				continue
			}
			end := -1
			var inner []int
			for j := i + 1; j < len(text); j++ {
				switch text[j] {
				case '\\':
					j++
					continue
				case '"':
					if valueEnds(text, j+1, top) {
						end = j
					} else {
						inner = append(inner, j)
					}
				}
				if end >= 0 {
					break
				}
			}
			if end < 0 {
				return text, false
			}
			for _, q := range inner {
				b.WriteString(text[from:q])
				b.WriteString(`\"`)
				from = q + 1
				changed = true
			}
			i = end + 1
			last = sigValue
		default:
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				last = sigBare
			}
			i++
		}
	}
	if !changed {
		return text, false
	}
	b.WriteString(text[from:])
	return b.String(), true
}

// valueEnds reports whether a string value's closing quote may stand
// right before text[i]: then comes a comma and, in an object, a quoted key
// and its colon (or the key and colon right away, the comma left out); or
// the bracket closing the container top and then the end, a comma or
// another closing bracket.
func valueEnds(s string, i int, top byte) bool {
	i = skipSpace(s, i)
	if i >= len(s) {
		return top == 0
	}
	switch s[i] {
	case '"':
		if top != '{' {
			return false
		}
		return keyFollows(s, i)
	case ',':
		i = skipSpace(s, i+1)
		if i >= len(s) {
			return false
		}
		if top != '{' {
			return s[i] == '"' || s[i] == '{' || s[i] == '[' || s[i] == '-' || s[i] >= '0' && s[i] <= '9'
		}
		if s[i] == '}' {
			return true
		}
		return keyFollows(s, i)
	case '}', ']':
		if top == '{' && s[i] != '}' || top == '[' && s[i] != ']' {
			return false
		}
		i = skipSpace(s, i+1)
		return i >= len(s) || s[i] == ',' || s[i] == '}' || s[i] == ']'
	}
	return false
}

// maxKeyLen bounds the keys keyFollows reads, so that checking every
// quote of a long text stays linear.
const maxKeyLen = 64

// keyFollows reports a short key and its colon at s[i]: quoted with
// double or single quotes, or a bare identifier.
func keyFollows(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	if q := s[i]; q == '"' || q == '\'' {
		for j := i + 1; j < len(s) && j <= i+maxKeyLen; j++ {
			switch s[j] {
			case '\\', '\n':
				return false
			case q:
				j = skipSpace(s, j+1)
				return j < len(s) && s[j] == ':'
			}
		}
		return false
	}
	j := i
	for j < len(s) && j < i+maxKeyLen && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9' || s[j] == '_' || s[j] == '$') {
		j++
	}
	if j == i {
		return false
	}
	j = skipSpace(s, j)
	return j < len(s) && s[j] == ':'
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// looksLikeJSONText reports whether a string value holds JSON text rather
// than prose: an object, or a JSON string holding one, as a whole.
func looksLikeJSONText(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) < 2 {
		return false
	}
	switch {
	case s[0] == '{' && s[len(s)-1] == '}':
		return true
	case s[0] == '"' && s[len(s)-1] == '"':
		t := strings.TrimSpace(s[1 : len(s)-1])
		return strings.HasPrefix(t, "{") || strings.HasPrefix(t, `\"`)
	case strings.HasPrefix(s, "```") && strings.HasSuffix(s, "```"):
		return strings.Contains(s, "{")
	}
	return false
}
