package parse

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// cutOff refuses an action whose member key (field idx, or -1 for a key
// the action does not know) the end of the answer interrupted. Nothing of
// such an answer is run: a message cut mid-sentence would be sent as if
// complete, and a number cut mid-digits would be another number.
func (p *Parser) cutOff(info *actionInfo, idx int, key string) *Error {
	name := key
	if idx >= 0 {
		name = info.fields[idx].Name
	}
	if idx >= 0 && name == "content" {
		return &Error{named: true, Reason: fmt.Sprintf("the answer was cut off in the middle of %q of %s (the answer reached its length limit before the text was complete), so nothing was sent; reply again with one complete JSON object and a shorter message: %s", name, info.name, info.example)}
	}
	return &Error{named: true, Reason: fmt.Sprintf("the answer was cut off inside %q of %s (the answer reached its length limit before the value was complete), so it was not run; reply again with one complete JSON object, shorter: %s", name, info.name, info.example)}
}

// placeholderWords are the words of the protocol's placeholders that can
// stand alone between angle brackets: <id>, <text>, <answer>.
func placeholderWords() []string {
	return []string{"id", "text", "name", "answer", "message", "msg", "content", "reply", "response", "channel", "channelid",
		"messageid", "replyto", "value", "string", "number", "duration", "ms", "note", "user", "username", "chatid", "placeholder",
		// The same words as models translate them.
		"texto", "mensaje", "respuesta", "contenido", "nachricht", "antwort", "inhalt", "kanal", "texte", "reponse"}
}

// isPlaceholder reports whether s, the whole value of a field, is a
// placeholder copied from the protocol or an example rather than a real
// value: <id>, <text>, <CHANNEL_ID>, <YOUR MESSAGE>, <channel id>, and for
// ids also "...", {channelId} and {{id}}. Chat markup such as <@123> (a
// mention), <#42> or <3 is not a placeholder, nor is text that only
// contains one.
func isPlaceholder(s string, isID bool) bool {
	if len(s) < 3 || len(s) > 80 {
		return false
	}
	// Most values are plainly not placeholders: decide on the first byte.
	switch s[0] {
	case '<', '{', '[', '.', 'x', 'X', ' ', '\t', '\n', 0xE2:
	default:
		return false
	}
	s = strings.TrimSpace(s)
	if len(s) < 3 {
		return false
	}
	if isID {
		switch s {
		case "...", "…", "..", "xxx", "XXX":
			return true
		}
		if inner, ok := strings.CutPrefix(s, "{"); ok && strings.HasSuffix(inner, "}") {
			inner = strings.Trim(inner, "{}")
			return placeholderText(inner, true)
		}
		if inner, ok := strings.CutPrefix(s, "["); ok && strings.HasSuffix(inner, "]") {
			return placeholderText(inner[:len(inner)-1], true)
		}
	}
	if inner, ok := strings.CutPrefix(s, "{{"); ok && strings.HasSuffix(inner, "}}") {
		return placeholderText(inner[:len(inner)-2], isID)
	}
	if s[0] != '<' || s[len(s)-1] != '>' {
		return false
	}
	return placeholderText(s[1:len(s)-1], false)
}

// placeholderText reports whether the text between a placeholder's
// brackets names a thing rather than being one: letters (of any script),
// digits, spaces, '_', '-' and '.', with at least one letter; and, unless
// loose, written the way placeholders are (several words, capitals, a
// non-Latin script, or a known placeholder word), so that a lone <b> or
// <br> in a message is not taken for one.
func placeholderText(s string, loose bool) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	letters, upper, lower, nonASCII, sep := 0, 0, 0, false, false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letters++
			if r >= utf8.RuneSelf {
				nonASCII = true
			} else if r >= 'A' && r <= 'Z' {
				upper++
			} else {
				lower++
			}
		case unicode.IsDigit(r):
		case r == ' ' || r == '_' || r == '-' || r == '.' || r == '…':
			sep = true
		default:
			return false
		}
	}
	if letters == 0 {
		return false
	}
	if loose || sep || nonASCII || (upper >= 2 && lower == 0) {
		return true
	}
	c := canon(s)
	for _, w := range placeholderWords() {
		if c == w {
			return true
		}
	}
	return false
}

// isIDField reports whether a field holds an id (channelId, replyTo,
// userId), where even "..." cannot be a real value.
func isIDField(name string) bool {
	c := canon(name)
	return strings.HasSuffix(c, "id") || c == "replyto"
}

// placeholderError refuses a value copied from the protocol.
func placeholderError(info *actionInfo, field, value string) *Error {
	if len(value) > 40 {
		value = value[:40] + "…"
	}
	what := "the real value"
	switch {
	case field == "content":
		what = "the text you want to send (or answer {\"action\":\"continue\"} if there is nothing to say)"
	case canon(field) == "channelid":
		what = "the id of a channel as the state message shows it"
	case isIDField(field):
		what = "an id as the state message shows it, or leave it out if it is optional"
	}
	return &Error{named: true, Reason: fmt.Sprintf("%s.%s is %q, a placeholder copied from the instructions, not a real value; put %s in its place: %s", info.name, field, value, what, info.example)}
}
