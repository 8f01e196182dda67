// Package notefile reads and writes the export of the bot's notes, as
// `airi memory export` writes it and `airi memory import` reads it back:
// markdown, one section per scope, one note per line. Subjects and names
// are JSON strings; a text is written as it is unless it spans lines or
// starts with a quote, then as a JSON string.
//
//	# airi memory
//
//	## global
//	- the harbour opens at six
//
//	## channel
//	- "-1001234567890": the quiz is on fridays
//
//	## user
//	- "4711" ("Ada", shareable): Ada plays the cello
package notefile

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/state"
)

// title is the export's first line.
const title = "# airi memory"

// Write writes notes as an export, the sections in the order of
// state.Scopes and the notes of each in the order given.
func Write(w io.Writer, notes []state.Note) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n\nOne section per scope, one note per line; `airi memory import` reads this file back.\n", title)
	for _, scope := range state.Scopes() {
		fmt.Fprintf(bw, "\n## %s\n", scope)
		for _, n := range notes {
			if n.Scope != scope {
				continue
			}
			bw.WriteString("- ")
			if scope != state.ScopeGlobal {
				bw.WriteString(prompts.Quote(n.Subject))
				var attrs []string
				if n.Name != "" {
					attrs = append(attrs, prompts.Quote(n.Name))
				}
				if n.Shareable {
					attrs = append(attrs, "shareable")
				}
				if len(attrs) > 0 {
					fmt.Fprintf(bw, " (%s)", strings.Join(attrs, ", "))
				}
				bw.WriteString(": ")
			}
			text := n.Text
			if strings.ContainsAny(text, "\n\r") || strings.HasPrefix(text, `"`) {
				text = prompts.Quote(text)
			}
			bw.WriteString(text)
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// Read parses an export and validates every note; an error names the
// line at fault, and no note is returned with it.
func Read(r io.Reader) ([]state.Note, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var (
		notes []state.Note
		scope state.NoteScope
		line  int
	)
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(s, "## "):
			scope = state.NoteScope(strings.TrimSpace(s[3:]))
			if err := scope.Validate(); err != nil {
				return nil, fmt.Errorf("line %d: section: %w", line, err)
			}
			continue
		case !strings.HasPrefix(s, "- "):
			continue
		}
		if scope == "" {
			return nil, fmt.Errorf("line %d: a note before the first section (## global, ## channel or ## user)", line)
		}
		n, err := parseNoteLine(scope, s[2:])
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if err := n.Validate(); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		notes = append(notes, n)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return notes, nil
}

func parseNoteLine(scope state.NoteScope, s string) (state.Note, error) {
	n := state.Note{Scope: scope}
	if scope != state.ScopeGlobal {
		subject, rest, err := cutJSONString(s)
		if err != nil {
			return n, fmt.Errorf("subject: %w", err)
		}
		n.Subject, s = subject, rest
		if strings.HasPrefix(s, " (") {
			s = s[2:]
			for {
				switch {
				case strings.HasPrefix(s, `"`):
					name, rest, err := cutJSONString(s)
					if err != nil {
						return n, fmt.Errorf("name: %w", err)
					}
					n.Name, s = name, rest
				case strings.HasPrefix(s, "shareable"):
					n.Shareable, s = true, s[len("shareable"):]
				default:
					return n, errors.New(`want a quoted name or "shareable" in the parentheses`)
				}
				if strings.HasPrefix(s, ", ") {
					s = s[2:]
					continue
				}
				if !strings.HasPrefix(s, ")") {
					return n, errors.New(`want ")" after the name and flags`)
				}
				s = s[1:]
				break
			}
		}
		if !strings.HasPrefix(s, ": ") {
			return n, errors.New(`want ": " before the note's text`)
		}
		s = s[2:]
	}
	n.Text = s
	if strings.HasPrefix(s, `"`) {
		text, rest, err := cutJSONString(s)
		if err != nil || strings.TrimSpace(rest) != "" {
			return n, errors.New("a text that starts with a quote must be one JSON string")
		}
		n.Text = text
	}
	return n, nil
}

// cutJSONString decodes the JSON string s starts with and returns the rest.
func cutJSONString(s string) (string, string, error) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, errors.New("want a JSON string in double quotes")
	}
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			var out string
			if err := json.Unmarshal([]byte(s[:i+1]), &out); err != nil {
				return "", s, err
			}
			return out, s[i+1:], nil
		}
	}
	return "", s, errors.New("unterminated string")
}
