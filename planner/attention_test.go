package planner

import (
	"context"
	"strings"
	"testing"
)

// TestAttentionInPrompt: the group section tells the model when it is
// woken, per group mode, and stays as it was under mode all; a budget
// notice goes in the state message only, so the system message keeps its
// bytes from tick to tick.
func TestAttentionInPrompt(t *testing.T) {
	const notice = "Today's token budget is nearly used up."
	tests := []struct {
		name, attention, notice string
		group                   bool
		want, wantNot           []string
	}{
		{"ambient", "ambient", "", true, []string{"now and then, to read the room", "silence (continue) is fine"}, []string{"woken only when"}},
		{"addressed", "addressed", "", true, []string{"You are woken only when someone addresses you"}, []string{"read the room"}},
		{"all", "all", "", true, nil, []string{"You are woken"}},
		{"direct", "", "", false, nil, []string{"You are woken"}},
	}
	b := newTestBuilder(t, "", BuilderOptions{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := fixture("telegram", tt.group)
			in.Attention = tt.attention
			p, err := b.Build(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			system := p.Messages[0].Content
			for _, w := range tt.want {
				if !strings.Contains(system, w) {
					t.Errorf("system message lacks %q", w)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(system, w) {
					t.Errorf("system message has %q", w)
				}
			}
			in.Notice = notice
			q, err := b.Build(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if q.Messages[0].Content != system {
				t.Error("a notice changed the system message")
			}
			if st := q.Messages[len(q.Messages)-1].Content; !strings.Contains(st, notice+"\nUnread:") {
				t.Errorf("state message without the notice before the unread line:\n%s", st)
			}
		})
	}
}
