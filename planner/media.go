package planner

import (
	"strings"
	"unicode/utf8"

	"github.com/airi-go/airi/state"
)

// historyMediaRunes bounds what the history shows of a description or
// a transcript: the model read it whole when the message was new, and
// ten images in the window should not cost much more than their
// placeholders.
const historyMediaRunes = 56

// ImageTokens is what an inline image is counted in a request's
// estimate: about what providers charge for one image at automatic
// detail.
const ImageTokens = 800

// labelled returns msgs with the labels of their attachments in front of
// their text ("[photo: a grey cat] my cat"), the way the model reads
// them, what was made of each cut to limit runes when limit > 0; msgs
// itself is not changed.
func labelled(msgs []state.Message, limit int) []state.Message {
	var out []state.Message
	for i, m := range msgs {
		if len(m.Media) == 0 {
			continue
		}
		if out == nil {
			out = append([]state.Message(nil), msgs...)
		}
		if limit > 0 {
			m.Media = append([]state.Media(nil), m.Media...)
			for j := range m.Media {
				m.Media[j].Text = shorten(m.Media[j].Text, limit)
			}
		}
		out[i].Content = m.WithMedia()
	}
	if out == nil {
		return msgs
	}
	return out
}

// attachImages gives the request messages the images of their stored
// messages: with one stored message per request message (the history),
// each its own; with one request message for them all (the state
// message), all of them. It returns how many images it attached.
func attachImages(turns []state.ChatMessage, msgs []state.Message, images map[string]state.Image) int {
	if len(images) == 0 || len(turns) == 0 {
		return 0
	}
	n := 0
	for i, m := range msgs {
		t := 0
		if len(turns) == len(msgs) {
			t = i
		} else if len(turns) != 1 {
			return n
		}
		for _, md := range m.Media {
			img, ok := images[md.Hash]
			if !ok || md.Hash == "" || m.Self {
				continue
			}
			if !hasImage(turns[t].Images, md.Hash) {
				turns[t].Images = append(append([]state.Image(nil), turns[t].Images...), img)
				n++
			}
		}
	}
	return n
}

func hasImage(imgs []state.Image, hash string) bool {
	for _, img := range imgs {
		if img.Hash == hash {
			return true
		}
	}
	return false
}

// shorten cuts s to at most n runes at a word boundary, marking the cut;
// a quoted transcript keeps its closing quote.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	quoted := strings.HasPrefix(s, "“") && strings.HasSuffix(s, "”")
	r := []rune(s)[:n]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	cut = strings.TrimRight(cut, " ,.;:") + "…"
	if quoted {
		cut += "”"
	}
	return cut
}
