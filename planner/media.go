package planner

import "github.com/airi-go/airi/state"

// ImageTokens is what an inline image is counted in a request's
// estimate: about what providers charge for one image at automatic
// detail.
const ImageTokens = 800

// labelled returns msgs with the labels of their attachments in front of
// their text ("[photo: a grey cat] my cat"), the way the model reads
// them; msgs itself is not changed.
func labelled(msgs []state.Message) []state.Message {
	var out []state.Message
	for i, m := range msgs {
		if len(m.Media) == 0 {
			continue
		}
		if out == nil {
			out = append([]state.Message(nil), msgs...)
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
