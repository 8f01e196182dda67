package state

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// CleanText returns s as every engine stores it: NUL bytes removed and
// invalid UTF-8 replaced by U+FFFD. PostgreSQL refuses both in text, and
// one refused message held back every update after it; SQLite stores
// the same cleaned text, so that the engines never differ in what the
// model is shown.
func CleanText(s string) string {
	if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// Clean returns m with its text fields cleaned as CleanText does.
func (m Message) Clean() Message {
	m.ChannelID = CleanText(m.ChannelID)
	m.PlatformID = CleanText(m.PlatformID)
	m.SenderID = CleanText(m.SenderID)
	m.SenderName = CleanText(m.SenderName)
	m.Content = CleanText(m.Content)
	m.ReplyTo = CleanText(m.ReplyTo)
	if len(m.Media) > 0 {
		// The caller's slice stays as it was.
		media := make([]Media, len(m.Media))
		for i, md := range m.Media {
			md.Name, md.Emoji, md.Set, md.Text = CleanText(md.Name), CleanText(md.Emoji), CleanText(md.Set), CleanText(md.Text)
			media[i] = md
		}
		m.Media = media
	}
	return m
}

// Clean returns c with its title and member names cleaned as CleanText
// does.
func (c Channel) Clean() Channel {
	c.Title = CleanText(c.Title)
	copied := false
	for i, m := range c.Members {
		if clean := CleanText(m); clean != m {
			if !copied {
				// The caller's slice stays as it was.
				c.Members, copied = append([]string(nil), c.Members...), true
			}
			c.Members[i] = clean
		}
	}
	return c
}

// MaxRawBytes bounds the raw answer and the reasoning a tick record
// keeps: a model that streams megabytes must not fill the disk one tick
// at a time. What is kept is the start, with a note of the whole length.
const MaxRawBytes = 64 << 10

// Clean returns t with the text the model or a platform gave cleaned as
// CleanText does (the raw answer, the reasoning and the results), and
// the raw answer and the reasoning cut to MaxRawBytes.
func (t Tick) Clean() Tick {
	t.Raw = CleanText(cutRaw(t.Raw))
	t.Reasoning = CleanText(cutRaw(t.Reasoning))
	t.ParseError = CleanText(t.ParseError)
	t.ModelError = CleanText(t.ModelError)
	t.Result = CleanText(t.Result)
	return t
}

// cutRaw keeps the start of s within MaxRawBytes, cut at a character,
// and says how long s was.
func cutRaw(s string) string {
	if len(s) <= MaxRawBytes {
		return s
	}
	note := fmt.Sprintf("\n[cut: %d bytes in all]", len(s))
	n := MaxRawBytes - len(note)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + note
}

// StoredForms returns the forms text takes inside the JSON a store keeps
// of requests and results: escaped once (a message's content), and
// escaped twice (quoted as data in the prompt, then stored as JSON).
// Forgetting a message replaces each of them, so that its text leaves
// the recorded requests that showed it too.
func StoredForms(text string) []string {
	once := jsonInner(text)
	twice := jsonInner(`"` + once + `"`)
	twice = strings.TrimSuffix(strings.TrimPrefix(twice, `\"`), `\"`)
	forms := []string{once}
	if twice != once {
		forms = append(forms, twice)
	}
	if text != once {
		forms = append(forms, text)
	}
	return forms
}

// jsonInner is s as a JSON string without its quotes.
func jsonInner(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
