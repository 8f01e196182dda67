package openai

import "strings"

// splitThink separates <think>...</think> blocks (also <thinking>, any
// case, and a block left open at the end of a cut answer) from the rest of
// an answer. It returns the blocks' inner text joined by blank lines, the
// answer without them, and whether a block was left open.
func splitThink(s string) (reasoning, rest string, open bool) {
	if !strings.Contains(s, "<") {
		return "", s, false
	}
	var thoughts, out strings.Builder
	for {
		start, tagEnd, name := findOpenTag(s)
		if start < 0 {
			// Some servers strip the opening tag and leave only the
			// closing one: everything before it is reasoning.
			if out.Len() == 0 && thoughts.Len() == 0 {
				if i, j := findCloseTag(s, "think"); i >= 0 {
					addThought(&thoughts, s[:i])
					s = s[j:]
					continue
				}
			}
			out.WriteString(s)
			break
		}
		out.WriteString(s[:start])
		body := s[tagEnd:]
		i, j := findCloseTag(body, name)
		if i < 0 {
			addThought(&thoughts, body)
			open = true
			break
		}
		addThought(&thoughts, body[:i])
		s = body[j:]
	}
	return thoughts.String(), out.String(), open
}

func addThought(b *strings.Builder, t string) {
	t = strings.TrimSpace(t)
	if t == "" {
		return
	}
	if b.Len() > 0 {
		b.WriteString("\n\n")
	}
	b.WriteString(t)
}

// findOpenTag finds the first <think> or <thinking> tag (any case) and
// returns its start, the index after it and the tag name.
func findOpenTag(s string) (start, end int, name string) {
	for off := 0; ; {
		i := strings.IndexByte(s[off:], '<')
		if i < 0 {
			return -1, -1, ""
		}
		i += off
		for _, n := range [...]string{"thinking", "think"} {
			if hasFoldPrefix(s[i+1:], n) && len(s) > i+1+len(n) && s[i+1+len(n)] == '>' {
				return i, i + len(n) + 2, n
			}
		}
		off = i + 1
	}
}

// findCloseTag finds </name> (any case) and returns its start and the
// index after it.
func findCloseTag(s, name string) (start, end int) {
	for off := 0; ; {
		i := strings.Index(s[off:], "</")
		if i < 0 {
			return -1, -1
		}
		i += off
		if hasFoldPrefix(s[i+2:], name) && len(s) > i+2+len(name) && s[i+2+len(name)] == '>' {
			return i, i + len(name) + 3
		}
		off = i + 2
	}
}

func hasFoldPrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
