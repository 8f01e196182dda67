package telegramtest

// The error strings in this file repeat Telegram's own wording, capital
// letters included, because the fake server returns them as Telegram does.
//lint:file-ignore ST1005 the errors are Telegram's protocol text, word for word

import (
	"fmt"
	"strconv"
	"strings"
)

// allowedTags are the tags of Telegram's HTML parse mode.
var allowedTags = map[string]bool{
	"b": true, "strong": true, "i": true, "em": true, "u": true, "ins": true,
	"s": true, "strike": true, "del": true, "span": true, "tg-spoiler": true,
	"a": true, "code": true, "pre": true, "blockquote": true, "tg-emoji": true,
}

// ParseHTML checks text the way Telegram's HTML parse mode does, roughly:
// only Telegram's tags, properly nested and closed; "<" and "&" only as
// part of a tag or one of the entities &lt; &gt; &amp; &quot; or a numeric
// one. It returns the visible text, or an error worded like Telegram's
// "can't parse entities" detail.
func ParseHTML(text string) (string, error) {
	var out strings.Builder
	var stack []string
	for i := 0; i < len(text); {
		switch c := text[i]; c {
		case '<':
			end := strings.IndexByte(text[i:], '>')
			if end < 0 {
				return "", fmt.Errorf("Can't find end of the tag starting at byte offset %d", i)
			}
			tag := text[i+1 : i+end]
			if strings.HasPrefix(tag, "/") {
				name := strings.ToLower(strings.TrimSpace(tag[1:]))
				if len(stack) == 0 {
					return "", fmt.Errorf("Unexpected end tag at byte offset %d", i)
				}
				if top := stack[len(stack)-1]; top != name {
					return "", fmt.Errorf("Unmatched end tag at byte offset %d, expected \"</%s>\", found \"</%s>\"", i, top, name)
				}
				stack = stack[:len(stack)-1]
			} else {
				name, attrs, _ := strings.Cut(tag, " ")
				name = strings.ToLower(name)
				if !allowedTags[name] {
					return "", fmt.Errorf("Unsupported start tag \"%s\" at byte offset %d", name, i)
				}
				if err := checkAttrs(name, attrs, i); err != nil {
					return "", err
				}
				stack = append(stack, name)
			}
			i += end + 1
		case '&':
			r, n, ok := entity(text[i:])
			if !ok {
				return "", fmt.Errorf("Character entity expected at byte offset %d", i)
			}
			out.WriteString(r)
			i += n
		default:
			out.WriteByte(c)
			i++
		}
	}
	if len(stack) > 0 {
		return "", fmt.Errorf("Can't find end tag corresponding to start tag \"%s\"", stack[len(stack)-1])
	}
	return out.String(), nil
}

// checkAttrs accepts the attributes Telegram knows for a tag.
func checkAttrs(name, attrs string, at int) error {
	attrs = strings.TrimSpace(attrs)
	switch name {
	case "a":
		v, ok := attrValue(attrs, "href")
		if !ok {
			return fmt.Errorf("Tag \"a\" must have attribute \"href\" at byte offset %d", at)
		}
		if _, err := ParseHTML(v); err != nil {
			return fmt.Errorf("Bad href at byte offset %d: %v", at, err)
		}
	case "span":
		if v, ok := attrValue(attrs, "class"); !ok || v != "tg-spoiler" {
			return fmt.Errorf("Tag \"span\" must have class \"tg-spoiler\" at byte offset %d", at)
		}
	case "code", "blockquote", "tg-emoji":
	default:
		if attrs != "" {
			return fmt.Errorf("Tag \"%s\" must not have attributes at byte offset %d", name, at)
		}
	}
	return nil
}

// attrValue reads name="value" from attrs.
func attrValue(attrs, name string) (string, bool) {
	rest, ok := strings.CutPrefix(attrs, name+"=")
	if !ok || len(rest) < 2 {
		return "", false
	}
	q := rest[0]
	if q != '"' && q != '\'' {
		return "", false
	}
	end := strings.IndexByte(rest[1:], q)
	if end < 0 {
		return "", false
	}
	return rest[1 : 1+end], true
}

// entity decodes an HTML entity at the start of s.
func entity(s string) (string, int, bool) {
	semi := strings.IndexByte(s, ';')
	if semi < 2 || semi > 10 {
		return "", 0, false
	}
	body := s[1:semi]
	switch body {
	case "lt":
		return "<", semi + 1, true
	case "gt":
		return ">", semi + 1, true
	case "amp":
		return "&", semi + 1, true
	case "quot":
		return `"`, semi + 1, true
	}
	if strings.HasPrefix(body, "#") {
		num := body[1:]
		base := 10
		if strings.HasPrefix(num, "x") || strings.HasPrefix(num, "X") {
			num, base = num[1:], 16
		}
		n, err := strconv.ParseUint(num, base, 32)
		if err != nil || n == 0 || n > 0x10FFFF {
			return "", 0, false
		}
		return string(rune(n)), semi + 1, true
	}
	return "", 0, false
}
