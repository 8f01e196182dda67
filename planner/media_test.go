package planner

import (
	"context"
	"strings"
	"testing"

	"github.com/airi-go/airi/state"
)

func TestBuildShowsAttachments(t *testing.T) {
	b := newTestBuilder(t, "", BuilderOptions{})
	in := fixture("telegram", true)
	in.History = append([]state.Message(nil), in.History...)
	old := &in.History[len(in.History)-3]
	old.Media = []state.Media{{Kind: state.MediaPhoto, Hash: "h-old", Text: "a pier at night"}}
	in.Incoming = append([]state.Message(nil), in.Incoming...)
	in.Incoming[0].Media = []state.Media{{Kind: state.MediaVoice, Duration: 12, Text: `"see you at five"`}}
	in.Incoming[1].Media = []state.Media{{Kind: state.MediaPhoto, Hash: "h-new"}}

	p, err := b.Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	var hist strings.Builder
	for _, m := range p.Messages[1 : len(p.Messages)-1] {
		hist.WriteString(m.Content)
		if len(m.Images) > 0 {
			t.Errorf("describe mode: history turn has images: %+v", m)
		}
	}
	if !strings.Contains(hist.String(), `[photo: a pier at night] `+old.Content) {
		t.Errorf("history lacks the description:\n%s", hist.String())
	}
	st := p.Messages[len(p.Messages)-1]
	for _, want := range []string{`[voice 0:12: \"see you at five\"]`, `[photo] ` + in.Incoming[1].Content} {
		if !strings.Contains(st.Content, want) && !strings.Contains(st.Content, strings.ReplaceAll(want, `\"`, `"`)) {
			t.Errorf("state message lacks %s:\n%s", want, st.Content)
		}
	}

	// Inline: the images go with the messages that carried them.
	in.Images = map[string]state.Image{
		"h-old": {Mime: "image/jpeg", Hash: "h-old", Data: []byte("old")},
		"h-new": {Mime: "image/png", Hash: "h-new", Data: []byte("new")},
	}
	q, err := b.Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for i, m := range q.Messages {
		for _, img := range m.Images {
			found = append(found, img.Hash)
			if img.Hash == "h-new" && i != len(q.Messages)-1 {
				t.Errorf("the new photo went with message %d, not the state message", i)
			}
		}
	}
	if strings.Join(found, ",") != "h-old,h-new" {
		t.Errorf("images = %v, want h-old then h-new once each", found)
	}
	if q.Tokens != p.Tokens+2*ImageTokens {
		t.Errorf("tokens %d, want %d + two images", q.Tokens, p.Tokens)
	}
	if in.History[len(in.History)-3].Content != old.Content {
		t.Error("Build changed its input")
	}
}

// describedCat is a description as long as the vision model is asked
// for at most.
const describedCat = "A grey tabby cat asleep on a laptop keyboard, one paw over the trackpad; a mug of tea and a notebook with handwritten sums beside it, lit by a desk lamp."

// TestDescribedImagesCost measures what ten described images in the
// window cost over the same chat with placeholders.
func TestDescribedImagesCost(t *testing.T) {
	b := newTestBuilder(t, "", BuilderOptions{})
	build := func(text string) int {
		in := fixture("telegram", true)
		in.History = append([]state.Message(nil), in.History...)
		n := 0
		for i := range in.History {
			if in.History[i].Self || n == 10 {
				continue
			}
			in.History[i].Media = []state.Media{{Kind: state.MediaPhoto, Hash: "h", Text: text}}
			n++
		}
		if n != 10 {
			t.Fatalf("%d photos in the window", n)
		}
		p, err := b.Build(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		return p.Tokens
	}
	placeholders, described := build(""), build(describedCat)
	ratio := float64(described) / float64(placeholders)
	t.Logf("tokens per call: %d with placeholders, %d with ten descriptions (%.3f)", placeholders, described, ratio)
	if ratio > 1.15 {
		t.Errorf("ten described images cost %.1f%% more than placeholders; the goal is at most 15%%", (ratio-1)*100)
	}
}

func TestShorten(t *testing.T) {
	tests := []struct{ in, want string }{
		{"short enough", "short enough"},
		{"a grey tabby cat asleep on a laptop keyboard", "a grey tabby cat…"},
		{"“see you at five by the old pier”", "“see you at five by…”"},
	}
	for _, tt := range tests {
		if got := shorten(tt.in, 20); got != tt.want {
			t.Errorf("shorten(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
