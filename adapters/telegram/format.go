package telegram

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxMessageUTF16 is Telegram's limit on the text of one message, counted
// in UTF-16 code units of the text after entity parsing.
const MaxMessageUTF16 = 4096

// style is a set of Telegram text entities applied to a run of text.
type style uint8

const (
	styleBold style = 1 << iota
	styleItalic
	styleStrike
	styleSpoiler
	styleCode
	stylePre
)

// span is a run of visible text with one set of entities. Formatting is
// kept as spans rather than HTML so that long texts can be cut anywhere in
// the visible text and each part rendered with its own balanced tags: a cut
// can never fall inside a tag or an escape.
type span struct {
	text  string
	style style
	href  string // link target, when the run is a link
	lang  string // language of a pre block
}

// formatted is the model's markdown parsed into spans.
type formatted []span

// parseMarkdown reads the markdown a model writes (bold, italic, strike,
// spoilers, inline code, fenced code blocks, links, headings, bullets) into
// spans. Anything it does not recognise stays literal text.
func parseMarkdown(src string) formatted {
	out := make(formatted, 0, 8+len(src)/32)
	lines := strings.SplitAfter(src, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimLeft(line, " \t")
		if strings.HasPrefix(trimmed, "```") {
			lang := strings.TrimSpace(strings.TrimPrefix(trimmed, "```"))
			if strings.ContainsAny(lang, " `") {
				lang = ""
			}
			var body strings.Builder
			closed := false
			j := i + 1
			for ; j < len(lines); j++ {
				if strings.HasPrefix(strings.TrimLeft(lines[j], " \t"), "```") {
					closed = true
					break
				}
				body.WriteString(lines[j])
			}
			code := strings.TrimSuffix(body.String(), "\n")
			if code != "" {
				out = append(out, span{text: code, style: stylePre, lang: lang})
			}
			if !closed {
				break
			}
			// The closing fence's own line break separates the block from
			// what follows.
			if strings.HasSuffix(lines[j], "\n") {
				out = append(out, span{text: "\n"})
			}
			i = j
			continue
		}
		out = appendLine(out, line)
	}
	return out.merge()
}

// appendLine handles the block-level marks of one line (headings, bullets)
// and then its inline marks.
func appendLine(out formatted, line string) formatted {
	body, nl := strings.CutSuffix(line, "\n")
	indent := body[:len(body)-len(strings.TrimLeft(body, " \t"))]
	rest := body[len(indent):]
	base := style(0)
	switch {
	case headingLevel(rest) > 0:
		rest = strings.TrimSpace(rest[headingLevel(rest):])
		indent = ""
		base = styleBold
	case len(rest) >= 2 && (rest[0] == '-' || rest[0] == '*' || rest[0] == '+') && rest[1] == ' ':
		// A leading "* " would otherwise read as an italic mark.
		indent += "• "
		rest = rest[2:]
	}
	if indent != "" {
		out = append(out, span{text: indent})
	}
	out = appendInline(out, rest, base, "")
	if nl {
		out = append(out, span{text: "\n"})
	}
	return out
}

// headingLevel returns the length of a "## " prefix, or 0.
func headingLevel(s string) int {
	n := 0
	for n < len(s) && n < 6 && s[n] == '#' {
		n++
	}
	if n == 0 || n >= len(s) || s[n] != ' ' {
		return 0
	}
	return n + 1
}

// delimiters of inline styles, longest first so "**" wins over "*". A
// single "*" is bold as in Telegram's own markdown, which the Telegram
// prompt asks the model for (*bold*, _italic_); "**" is bold as well.
var inlineMarks = []struct {
	mark  string
	style style
}{
	{"**", styleBold},
	{"__", styleBold},
	{"~~", styleStrike},
	{"||", styleSpoiler},
	{"*", styleBold},
	{"_", styleItalic},
}

// appendInline parses the inline marks of s, every run carrying base and
// href. Literal runs are slices of s, not copies.
func appendInline(out formatted, s string, base style, href string) formatted {
	lit := 0 // start of the pending literal run
	flush := func(end int) {
		if end > lit {
			out = append(out, span{text: s[lit:end], style: base, href: href})
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			flush(i)
			lit = i + 1 // the escaped character starts the next run
			i += 2
			continue
		case c == '`':
			n := 0
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			fence := s[i : i+n]
			if end := strings.Index(s[i+n:], fence); end > 0 {
				code := s[i+n : i+n+end]
				if strings.TrimSpace(code) != "" {
					flush(i)
					out = append(out, span{text: code, style: base | styleCode, href: href})
					i += 2*n + end
					lit = i
					continue
				}
			}
			i += n
			continue
		case (c == 'h' || c == 'H') && bareURLAt(s, i):
			// Marks inside a bare URL (https://x.y/_a_) are part of it.
			for i < len(s) && !isSpaceByte(s[i]) {
				i++
			}
			continue
		case c == '[' && href == "":
			if text, target, n, ok := parseLink(s[i:]); ok {
				flush(i)
				out = appendInline(out, text, base, target)
				i += n
				lit = i
				continue
			}
		case c == '*' || c == '_' || c == '~' || c == '|':
			if inner, st, n, ok := matchMark(s, i); ok && base&st == 0 {
				flush(i)
				out = appendInline(out, inner, base|st, href)
				i += n
				lit = i
				continue
			}
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	flush(len(s))
	return out
}

// matchMark reports whether an inline mark opens at s[i] and is closed
// later in s, returning the enclosed text and the bytes consumed.
func matchMark(s string, i int) (inner string, st style, n int, ok bool) {
	for _, m := range inlineMarks {
		if !strings.HasPrefix(s[i:], m.mark) {
			continue
		}
		open := i + len(m.mark)
		if open >= len(s) || isSpaceByte(s[open]) {
			return "", 0, 0, false
		}
		if m.mark == "_" || m.mark == "__" {
			// snake_case words are not emphasis.
			if i > 0 && isWordBefore(s[:i]) {
				return "", 0, 0, false
			}
		}
		for j := open + 1; j+len(m.mark) <= len(s); j++ {
			if !strings.HasPrefix(s[j:], m.mark) || isSpaceByte(s[j-1]) {
				continue
			}
			after := j + len(m.mark)
			if len(m.mark) == 1 && after < len(s) && s[after] == m.mark[0] {
				// Part of a longer run such as "**"; not this mark's end.
				j++
				continue
			}
			if m.mark[0] == '_' && after < len(s) && isWordAfter(s[after:]) {
				continue
			}
			return s[open:j], m.style, after - i, true
		}
		return "", 0, 0, false
	}
	return "", 0, 0, false
}

// bareURLAt reports whether an http(s) URL starts at s[i], at the start
// of a word.
func bareURLAt(s string, i int) bool {
	if i > 0 && isWordBefore(s[:i]) {
		return false
	}
	rest := s[i:]
	for _, p := range []string{"https://", "http://"} {
		if len(rest) > len(p) && strings.EqualFold(rest[:len(p)], p) {
			return true
		}
	}
	return false
}

// parseLink matches "[text](target)" at the start of s.
func parseLink(s string) (text, target string, n int, ok bool) {
	closeText := strings.Index(s, "](")
	if closeText < 2 {
		return "", "", 0, false
	}
	text = s[1:closeText]
	if strings.Contains(text, "[") {
		return "", "", 0, false
	}
	rest := s[closeText+2:]
	end := strings.IndexByte(rest, ')')
	if end < 1 {
		return "", "", 0, false
	}
	target = strings.TrimSpace(rest[:end])
	if !linkAllowed(target) {
		return "", "", 0, false
	}
	return text, target, closeText + 2 + end + 1, true
}

// linkAllowed accepts the schemes Telegram turns into links; anything else
// stays literal so that a bad URL cannot make Telegram refuse the message.
func linkAllowed(u string) bool {
	if strings.ContainsAny(u, " \t\n<>\"") {
		return false
	}
	l := strings.ToLower(u)
	for _, p := range []string{"https://", "http://", "tg://", "mailto:"} {
		if strings.HasPrefix(l, p) && len(l) > len(p) {
			return true
		}
	}
	return false
}

func isASCIIPunct(c byte) bool {
	return c < utf8.RuneSelf && unicode.IsPunct(rune(c)) || c == '`' || c == '|' || c == '~' || c == '<' || c == '>' || c == '+' || c == '='
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isWordBefore(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isWordAfter(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// merge joins neighbouring spans of the same kind, copying each joined
// run once.
func (f formatted) merge() formatted {
	same := func(a, b span) bool { return a.style == b.style && a.href == b.href && a.lang == b.lang }
	out := f[:0]
	for i := 0; i < len(f); {
		j, size := i+1, len(f[i].text)
		for j < len(f) && same(f[i], f[j]) {
			size += len(f[j].text)
			j++
		}
		s := f[i]
		if j > i+1 {
			var b strings.Builder
			b.Grow(size)
			for _, t := range f[i:j] {
				b.WriteString(t.text)
			}
			s.text = b.String()
		}
		if s.text != "" {
			out = append(out, s)
		}
		i = j
	}
	return out
}

// Plain returns the visible text, without any markup.
func (f formatted) Plain() string {
	var b strings.Builder
	for _, s := range f {
		b.WriteString(s.text)
	}
	return b.String()
}

// HTML renders the spans as Telegram HTML. Every span opens and closes its
// own tags, so any sequence of spans renders balanced markup.
func (f formatted) HTML() string {
	var b strings.Builder
	for _, s := range f {
		if s.style&stylePre != 0 {
			if s.lang != "" {
				b.WriteString(`<pre><code class="language-`)
				b.WriteString(escapeHTML(s.lang, true))
				b.WriteString(`">`)
				b.WriteString(escapeHTML(s.text, false))
				b.WriteString("</code></pre>")
			} else {
				b.WriteString("<pre>")
				b.WriteString(escapeHTML(s.text, false))
				b.WriteString("</pre>")
			}
			continue
		}
		var closers []string
		open := func(tag, closer string) {
			b.WriteString(tag)
			closers = append(closers, closer)
		}
		if s.href != "" {
			open(`<a href="`+escapeHTML(s.href, true)+`">`, "</a>")
		}
		if s.style&styleBold != 0 {
			open("<b>", "</b>")
		}
		if s.style&styleItalic != 0 {
			open("<i>", "</i>")
		}
		if s.style&styleStrike != 0 {
			open("<s>", "</s>")
		}
		if s.style&styleSpoiler != 0 {
			open("<tg-spoiler>", "</tg-spoiler>")
		}
		if s.style&styleCode != 0 {
			open("<code>", "</code>")
		}
		b.WriteString(escapeHTML(s.text, false))
		for i := len(closers) - 1; i >= 0; i-- {
			b.WriteString(closers[i])
		}
	}
	return b.String()
}

// escapeHTML escapes the characters Telegram's HTML mode reserves.
func escapeHTML(s string, attr bool) string {
	if !strings.ContainsAny(s, `<>&"`) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '"':
			if attr {
				b.WriteString("&quot;")
			} else {
				b.WriteRune(r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// utf16Len counts s the way Telegram measures message length.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 && r <= utf8.MaxRune {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// Split cuts the text into parts of at most limit UTF-16 units of visible
// text, preferring a paragraph break, then a line break, then the end of a
// sentence, then any white space; only a single word longer than limit is
// cut inside (at a character boundary). The parts' visible texts joined
// give back the whole text: separators stay at the end of the part before.
func (f formatted) Split(limit int) []formatted {
	if limit < 1 {
		limit = MaxMessageUTF16
	}
	text := f.Plain()
	cuts := splitPoints(text, limit)
	if len(cuts) == 0 {
		if len(f) == 0 {
			return nil
		}
		return []formatted{f}
	}
	parts := make([]formatted, 0, len(cuts)+1)
	var cur formatted
	pos := 0 // byte offset of the start of the current span in text
	next := 0
	for _, s := range f {
		start := pos
		pos += len(s.text)
		for next < len(cuts) && cuts[next] < pos {
			cut := cuts[next]
			if cut > start {
				head := s
				head.text = s.text[:cut-start]
				cur = append(cur, head)
				s.text = s.text[cut-start:]
				start = cut
			}
			parts = append(parts, cur)
			cur = nil
			next++
		}
		if s.text != "" {
			cur = append(cur, s)
		}
	}
	for ; next < len(cuts); next++ {
		parts = append(parts, cur)
		cur = nil
	}
	if len(cur) > 0 {
		parts = append(parts, cur)
	}
	return parts
}

// splitPoints returns the byte offsets at which text is cut.
func splitPoints(text string, limit int) []int {
	var cuts []int
	start := 0
	for utf16Len(text[start:]) > limit {
		// end is the furthest rune boundary keeping the part within limit.
		end, units := start, 0
		for end < len(text) {
			r, size := utf8.DecodeRuneInString(text[end:])
			w := 1
			if r >= 0x10000 {
				w = 2
			}
			if units+w > limit {
				break
			}
			units += w
			end += size
		}
		cut := bestCut(text[start:end])
		if cut <= 0 {
			cut = end - start
		}
		start += cut
		cuts = append(cuts, start)
	}
	return cuts
}

// bestCut picks where to end a part within window (the longest prefix that
// fits): the last paragraph break, line break or sentence end in its later
// two thirds, else the last white space, else 0 (no boundary).
func bestCut(window string) int {
	min := len(window) / 3
	if i := strings.LastIndex(window, "\n\n"); i >= 0 && i+2 > min {
		return i + 2
	}
	if i := strings.LastIndexByte(window, '\n'); i >= 0 && i+1 > min {
		return i + 1
	}
	if i := lastSentenceEnd(window); i > min {
		return i
	}
	for i := len(window); i > 0; {
		r, size := utf8.DecodeLastRuneInString(window[:i])
		if unicode.IsSpace(r) {
			return i
		}
		i -= size
	}
	return 0
}

// lastSentenceEnd returns the offset just after the last sentence end
// (". ", "! ", "? " and their white space, or a CJK full stop), or -1.
func lastSentenceEnd(s string) int {
	for i := len(s); i > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		switch r {
		case '。', '！', '？':
			return i
		case ' ', '\t':
			if i-size > 0 {
				p, _ := utf8.DecodeLastRuneInString(s[:i-size])
				if p == '.' || p == '!' || p == '?' || p == '…' {
					return i
				}
			}
		}
		i -= size
	}
	return -1
}
