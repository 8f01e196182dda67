package satori

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/airi-go/airi/state"
)

// Content is what the model reads of one Satori message: its decoded text
// and the facts the markup carried besides.
type Content struct {
	// Text is plain text: entities decoded, mentions as @name, emoji
	// faces and media without a source as placeholders such as [face],
	// paragraphs and <br/> as line breaks.
	Text string
	// Media are the resources of <img>, <audio>, <video> and <file>
	// elements with a src, in order; they are not in Text.
	Media []state.Media
	// QuoteID is the id of the message this one replies to (<quote id>).
	QuoteID string
	// MentionIDs are the user ids targeted by <at id> elements, in order.
	MentionIDs []string
}

// Mentions reports whether an <at> element targets the user id.
func (c Content) Mentions(userID string) bool {
	if userID == "" {
		return false
	}
	for _, id := range c.MentionIDs {
		if id == userID {
			return true
		}
	}
	return false
}

// mediaKinds maps resource elements to the kind of attachment they are.
var mediaKinds = map[string]string{
	"img":   state.MediaPhoto,
	"image": state.MediaPhoto,
	"audio": state.MediaAudio,
	"video": state.MediaVideo,
	"file":  state.MediaDocument,
}

// maxSrcBytes bounds the src kept as an attachment's address: a longer one
// (a data: URL holding the file) is left as a placeholder.
const maxSrcBytes = 4096

// placeholders maps media elements to the short text the model sees when
// they are not kept as an attachment.
var placeholders = map[string]string{
	"img":   "[image]",
	"image": "[image]",
	"audio": "[audio]",
	"video": "[video]",
	"file":  "[file]",
	"face":  "[face]",
}

// ParseContent decodes Satori message markup. It never fails: text that is
// not well-formed markup (a stray '<', an unclosed tag, an unmatched end
// tag) is kept as text.
func ParseContent(s string) Content {
	r := renderer{src: s}
	sc := scanner{src: s}
	for {
		tok, ok := sc.next()
		if !ok {
			break
		}
		r.token(tok, sc.pos)
	}
	text := strings.TrimRight(r.out.String(), "\n")
	if len(r.media) > 0 {
		// What is left of a caption around its images.
		text = strings.TrimSpace(text)
	}
	return Content{
		Text:       text,
		QuoteID:    r.quoteID,
		MentionIDs: r.mentions,
		Media:      r.media,
	}
}

type tokenKind int

const (
	tokText tokenKind = iota
	tokStart
	tokEnd
)

type token struct {
	kind        tokenKind
	text        string // raw text for tokText (entities still encoded)
	name        string // lower-cased element name
	attrs       map[string]string
	selfClosing bool
}

// scanner splits markup into text, start-tag and end-tag tokens. Anything
// that does not scan as a tag is returned as text.
type scanner struct {
	src string
	pos int
}

func (s *scanner) next() (token, bool) {
	if s.pos >= len(s.src) {
		return token{}, false
	}
	if s.src[s.pos] == '<' {
		if tok, end, ok := scanTag(s.src, s.pos); ok {
			s.pos = end
			return tok, true
		}
		// A '<' that opens no tag is literal text.
		i := strings.IndexByte(s.src[s.pos+1:], '<')
		end := len(s.src)
		if i >= 0 {
			end = s.pos + 1 + i
		}
		tok := token{kind: tokText, text: s.src[s.pos:end]}
		s.pos = end
		return tok, true
	}
	i := strings.IndexByte(s.src[s.pos:], '<')
	end := len(s.src)
	if i >= 0 {
		end = s.pos + i
	}
	tok := token{kind: tokText, text: s.src[s.pos:end]}
	s.pos = end
	return tok, true
}

func isNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isNameByte(c byte) bool {
	return isNameStart(c) || c >= '0' && c <= '9' || c == '-' || c == ':' || c == '.'
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// scanTag reads a tag starting at src[i] == '<'. It reports ok=false when
// the text there is not a complete tag.
func scanTag(src string, i int) (token, int, bool) {
	j := i + 1
	end := false
	if j < len(src) && src[j] == '/' {
		end = true
		j++
	}
	if j >= len(src) || !isNameStart(src[j]) {
		return token{}, 0, false
	}
	k := j
	for k < len(src) && isNameByte(src[k]) {
		k++
	}
	tok := token{kind: tokStart, name: strings.ToLower(src[j:k])}
	if end {
		tok.kind = tokEnd
		for k < len(src) && isSpace(src[k]) {
			k++
		}
		if k < len(src) && src[k] == '>' {
			return tok, k + 1, true
		}
		return token{}, 0, false
	}
	for {
		for k < len(src) && isSpace(src[k]) {
			k++
		}
		if k >= len(src) {
			return token{}, 0, false
		}
		switch {
		case src[k] == '>':
			return tok, k + 1, true
		case src[k] == '/' && k+1 < len(src) && src[k+1] == '>':
			tok.selfClosing = true
			return tok, k + 2, true
		case isNameStart(src[k]):
			a := k
			for k < len(src) && isNameByte(src[k]) {
				k++
			}
			name := strings.ToLower(src[a:k])
			value := ""
			p := k
			for p < len(src) && isSpace(src[p]) {
				p++
			}
			if p < len(src) && src[p] == '=' {
				p++
				for p < len(src) && isSpace(src[p]) {
					p++
				}
				if p >= len(src) {
					return token{}, 0, false
				}
				if q := src[p]; q == '"' || q == '\'' {
					e := strings.IndexByte(src[p+1:], q)
					if e < 0 {
						return token{}, 0, false
					}
					value = decodeEntities(src[p+1 : p+1+e])
					k = p + 1 + e + 1
				} else {
					v := p
					for p < len(src) && !isSpace(src[p]) && src[p] != '>' && !(src[p] == '/' && p+1 < len(src) && src[p+1] == '>') {
						p++
					}
					value = decodeEntities(src[v:p])
					k = p
				}
			}
			if tok.attrs == nil {
				tok.attrs = make(map[string]string, 2)
			}
			if _, dup := tok.attrs[name]; !dup {
				tok.attrs[name] = value
			}
		default:
			return token{}, 0, false
		}
	}
}

// renderer turns tokens into the text the model reads. Elements whose
// content is hidden (a quote, an at, media) are tracked with a depth
// counter so that their children produce nothing.
type renderer struct {
	src      string
	lastEnd  map[string]int // name → offset of its last end tag in src
	out      strings.Builder
	quoteID  string
	mentions []string
	media    []state.Media
	// open holds the names of open elements; hidden counts how many of
	// them suppress their content.
	open   []string
	hidden int
}

// hides reports whether an element's children are not shown.
func hides(name string) bool {
	switch name {
	case "quote", "at", "sharp", "author", "img", "image", "audio", "video", "file", "face", "button":
		return true
	}
	return false
}

// block reports whether an element is laid out on its own lines.
func block(name string) bool {
	switch name {
	case "p", "message":
		return true
	}
	return false
}

func (r *renderer) newline() {
	s := r.out.String()
	if len(s) > 0 && !strings.HasSuffix(s, "\n") {
		r.out.WriteByte('\n')
	}
}

// maxOpen bounds the element nesting tracked; deeper start tags are
// treated as text containers that are never closed, which keeps end-tag
// matching linear on hostile input.
const maxOpen = 256

func (r *renderer) token(t token, pos int) {
	switch t.kind {
	case tokText:
		if r.hidden == 0 {
			r.out.WriteString(decodeEntities(t.text))
		}
	case tokStart:
		// An element written HTML-style without its end tag (<img src=x>)
		// must not swallow the text after it.
		if hides(t.name) && !t.selfClosing && !r.hasEndTag(t.name, pos) {
			t.selfClosing = true
		}
		r.start(t)
	case tokEnd:
		r.end(t.name)
	}
}

func (r *renderer) start(t token) {
	visible := r.hidden == 0
	switch {
	case t.name == "quote":
		if r.quoteID == "" && visible {
			r.quoteID = t.attrs["id"]
		}
	case t.name == "at" && visible:
		r.out.WriteString(atText(t.attrs))
		if id := t.attrs["id"]; id != "" {
			r.mentions = append(r.mentions, id)
		}
	case t.name == "sharp" && visible:
		name := t.attrs["name"]
		if name == "" {
			name = t.attrs["id"]
		}
		r.out.WriteString("#" + name)
	case t.name == "br" && visible:
		r.out.WriteByte('\n')
	case mediaKinds[t.name] != "" && visible && r.attach(t):
	case placeholders[t.name] != "" && visible:
		r.out.WriteString(placeholders[t.name])
	case block(t.name) && visible:
		r.newline()
	case t.name == "a" && visible && t.selfClosing:
		r.out.WriteString(t.attrs["href"])
	}
	if t.selfClosing || t.name == "br" || len(r.open) >= maxOpen {
		return
	}
	r.open = append(r.open, t.name)
	if hides(t.name) {
		r.hidden++
	}
}

// attach records a resource element as an attachment and reports
// whether it did: not without a usable src, nor past the limit of
// attachments per message.
func (r *renderer) attach(t token) bool {
	src := strings.TrimSpace(t.attrs["src"])
	if src == "" || len(src) > maxSrcBytes || len(r.media) >= state.MaxMediaPerMessage {
		return false
	}
	m := state.Media{Kind: mediaKinds[t.name], FileID: src, UniqueID: src, Name: t.attrs["title"]}
	if m.Name == "" {
		m.Name = t.attrs["name"]
	}
	m.Width, _ = strconv.Atoi(t.attrs["width"])
	m.Height, _ = strconv.Atoi(t.attrs["height"])
	m.Duration, _ = strconv.Atoi(t.attrs["duration"])
	if p := strings.TrimSpace(t.attrs["poster"]); p != "" && len(p) <= maxSrcBytes {
		// A video's poster is the still image that can be shown of it.
		m.Thumb, m.ThumbUnique = p, p
	}
	if m.Width < 0 || m.Height < 0 || m.Duration < 0 {
		m.Width, m.Height, m.Duration = 0, 0, 0
	}
	r.media = append(r.media, m)
	return true
}

// hasEndTag reports whether an end tag for name follows offset pos. The
// offsets of the last end tag of every name are found in one pass.
func (r *renderer) hasEndTag(name string, pos int) bool {
	if r.lastEnd == nil {
		r.lastEnd = make(map[string]int)
		src := r.src
		for i := 0; ; {
			j := strings.Index(src[i:], "</")
			if j < 0 {
				break
			}
			k := i + j + 2
			e := k
			for e < len(src) && isNameByte(src[e]) {
				e++
			}
			if e > k {
				r.lastEnd[strings.ToLower(src[k:e])] = i + j
			}
			i = k
		}
	}
	last, ok := r.lastEnd[name]
	return ok && last >= pos
}

func atText(attrs map[string]string) string {
	switch attrs["type"] {
	case "all":
		return "@all"
	case "here":
		return "@here"
	}
	if n := attrs["name"]; n != "" {
		return "@" + n
	}
	if id := attrs["id"]; id != "" {
		return "@" + id
	}
	if role := attrs["role"]; role != "" {
		return "@" + role
	}
	return "@"
}

func (r *renderer) end(name string) {
	// An end tag closes the innermost open element of that name and every
	// element opened inside it; an end tag with no open match is ignored.
	for i := len(r.open) - 1; i >= 0; i-- {
		if r.open[i] != name {
			continue
		}
		for j := len(r.open) - 1; j >= i; j-- {
			if hides(r.open[j]) {
				r.hidden--
			}
			if block(r.open[j]) && r.hidden == 0 {
				r.newline()
			}
		}
		r.open = r.open[:i]
		return
	}
}

// decodeEntities decodes the entities Satori markup uses: the five XML
// ones and numeric references. Anything else is left as written.
func decodeEntities(s string) string {
	i := strings.IndexByte(s, '&')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		s = s[i:]
		// Entities are short: look for the ';' in a small window only, so
		// that text full of '&' decodes in linear time.
		semi := strings.IndexByte(s[:min(len(s), 14)], ';')
		if semi < 0 {
			b.WriteByte('&')
			s = s[1:]
		} else if r, ok := entity(s[1:semi]); ok {
			b.WriteRune(r)
			s = s[semi+1:]
		} else {
			b.WriteByte('&')
			s = s[1:]
		}
		i = strings.IndexByte(s, '&')
	}
	b.WriteString(s)
	return b.String()
}

func entity(name string) (rune, bool) {
	switch name {
	case "amp":
		return '&', true
	case "lt":
		return '<', true
	case "gt":
		return '>', true
	case "quot":
		return '"', true
	case "apos":
		return '\'', true
	case "nbsp":
		return '\u00a0', true
	}
	if len(name) < 2 || name[0] != '#' {
		return 0, false
	}
	var n uint64
	var err error
	if name[1] == 'x' || name[1] == 'X' {
		n, err = strconv.ParseUint(name[2:], 16, 32)
	} else {
		n, err = strconv.ParseUint(name[1:], 10, 32)
	}
	if err != nil || n == 0 || !utf8.ValidRune(rune(n)) {
		return 0, false
	}
	return rune(n), true
}

// Escape makes text safe to send as Satori message content: the model's
// text is data, never markup.
func Escape(s string) string {
	if !strings.ContainsAny(s, `&<>"`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// EncodeOutgoing builds the content of message.create: a leading quote
// element when replying, then the escaped text.
func EncodeOutgoing(text, replyTo string) string {
	if replyTo == "" {
		return Escape(text)
	}
	return `<quote id="` + Escape(replyTo) + `"/>` + Escape(text)
}
