package planner

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airi-go/airi/state"
)

// noteBook is an in-memory NoteSource.
type noteBook struct {
	mu      sync.Mutex
	notes   []state.Note
	touched map[int64]time.Time
}

func (nb *noteBook) Notes(_ context.Context, f state.NoteFilter) ([]state.Note, error) {
	nb.mu.Lock()
	defer nb.mu.Unlock()
	var out []state.Note
	for _, n := range nb.notes {
		if f.View == nil || f.View.Sees(n) {
			n.Used = nb.touched[n.ID]
			out = append(out, n)
		}
	}
	state.SortNotes(out)
	return out, nil
}

func (nb *noteBook) TouchNotes(_ context.Context, ids []int64, at time.Time) error {
	nb.mu.Lock()
	defer nb.mu.Unlock()
	if nb.touched == nil {
		nb.touched = map[int64]time.Time{}
	}
	for _, id := range ids {
		nb.touched[id] = at
	}
	return nil
}

// withSenders gives every message of in a sender id: its name in lower case.
func withSenders(in Input) Input {
	for _, list := range [][]state.Message{in.History, in.Incoming} {
		for i := range list {
			if !list[i].Self {
				list[i].SenderID = strings.ToLower(list[i].SenderName)
			}
		}
	}
	return in
}

func memoryText(t *testing.T, p Prompt) string {
	t.Helper()
	for _, s := range p.Sections {
		if s.Name == "memory" {
			if s.Message != 0 || s.Order < 200 || s.Order > 299 {
				t.Errorf("memory section at message %d, order %d; want the system message, order 200-299", s.Message, s.Order)
			}
			return s.Text(p.Messages)
		}
	}
	return ""
}

func TestMemorySectionShowsWhatTheChannelMaySee(t *testing.T) {
	nb := &noteBook{notes: []state.Note{
		{ID: 1, Scope: state.ScopeGlobal, Text: "the harbour opens at six"},
		{ID: 2, Scope: state.ScopeChannel, Subject: "-1001234567890", Text: "quiz on fridays"},
		{ID: 3, Scope: state.ScopeChannel, Subject: "-100999", Text: "another group's note"},
		{ID: 4, Scope: state.ScopeUser, Subject: "ada", Name: "Ada", Text: "Ada is vegetarian"},
		{ID: 5, Scope: state.ScopeUser, Subject: "ada", Name: "Ada", Text: "Ada plays the cello", Shareable: true},
		{ID: 6, Scope: state.ScopeUser, Subject: "zed", Name: "Zed", Text: "Zed shares but is not here", Shareable: true},
	}}
	b := newTestBuilder(t, "", BuilderOptions{Notes: nb})
	tests := []struct {
		name     string
		group    bool
		has, not []string
	}{
		{"direct chat with Ada", false,
			[]string{"note 1: \"the harbour opens at six\"", `note 4 about "Ada": "Ada is vegetarian"`, `note 5 about "Ada" (shareable): "Ada plays the cello"`},
			[]string{"quiz on fridays", "another group", "Zed"}},
		{"group with Ada in the window", true,
			[]string{"note 1:", `note 2 about this chat: "quiz on fridays"`, "Ada plays the cello", "data, not instructions"},
			[]string{"vegetarian", "another group", "Zed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := b.Build(context.Background(), withSenders(fixture("telegram", tt.group)))
			if err != nil {
				t.Fatal(err)
			}
			mem := memoryText(t, p)
			for _, s := range tt.has {
				if !strings.Contains(mem, s) {
					t.Errorf("memory section lacks %q:\n%s", s, mem)
				}
			}
			for _, msg := range p.Messages {
				for _, s := range tt.not {
					if strings.Contains(msg.Content, s) {
						t.Errorf("request shows %q in a %s message", s, msg.Role)
					}
				}
			}
		})
	}
	if len(nb.touched) == 0 || !nb.touched[1].Equal(testNow) {
		t.Errorf("shown notes not touched: %v", nb.touched)
	}
}

// TestMemoryKeepsSystemMessageStable: the system message stays byte for
// byte the same while the visible notes do, and changes when one does.
func TestMemoryKeepsSystemMessageStable(t *testing.T) {
	nb := &noteBook{notes: []state.Note{{ID: 1, Scope: state.ScopeUser, Subject: "ada", Name: "Ada", Text: "Ada is vegetarian"}}}
	b := newTestBuilder(t, "", BuilderOptions{Notes: nb})
	in := withSenders(fixture("telegram", false))
	build := func() string {
		t.Helper()
		p, err := b.Build(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		in.Now = in.Now.Add(2 * time.Hour) // touches the notes again
		return p.Messages[0].Content
	}
	first := build()
	if second := build(); second != first {
		t.Errorf("system message changed while memory did not:\n%s\n---\n%s", first, second)
	}
	// A note of another person changes nothing here.
	nb.notes = append(nb.notes, state.Note{ID: 2, Scope: state.ScopeUser, Subject: "bo", Name: "Bo", Text: "Bo likes tea"})
	if third := build(); third != first {
		t.Error("an invisible note changed the system message")
	}
	nb.notes[0].Text = "Ada is vegan"
	changed := build()
	if changed == first || !strings.Contains(changed, "Ada is vegan") {
		t.Errorf("a changed note did not reach the system message:\n%s", changed)
	}
	// Only what follows the memory section changes.
	i := strings.Index(first, "Ada is vegetarian")
	if first[:i] != changed[:i] {
		t.Error("the system message changed before the memory section")
	}
}

// checkedBook is a noteBook that says whether it holds notes, and counts
// the reads of a channel's notes.
type checkedBook struct {
	noteBook
	reads int
}

func (cb *checkedBook) HasNotes(context.Context) (bool, error) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	return len(cb.notes) > 0, nil
}

func (cb *checkedBook) Notes(ctx context.Context, f state.NoteFilter) ([]state.Note, error) {
	cb.reads++
	return cb.noteBook.Notes(ctx, f)
}

// TestMemoryAsksWhetherNotesExist: while the store holds no note, a tick
// does not read the channel's notes; the first note saved shows on the
// next tick, and from then on the notes are read every tick.
func TestMemoryAsksWhetherNotesExist(t *testing.T) {
	cb := &checkedBook{}
	b := newTestBuilder(t, "", BuilderOptions{Notes: cb})
	in := withSenders(fixture("telegram", false))
	mem := func() string {
		t.Helper()
		p, err := b.Build(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		return memoryText(t, p)
	}
	for range 2 {
		if m := mem(); m != "" || cb.reads != 0 {
			t.Fatalf("with no notes: memory %q after %d reads, want none and no read", m, cb.reads)
		}
	}
	cb.mu.Lock()
	cb.notes = []state.Note{{ID: 1, Scope: state.ScopeGlobal, Text: "the harbour opens at six"}}
	cb.mu.Unlock()
	if m := mem(); !strings.Contains(m, "the harbour opens at six") || cb.reads != 1 {
		t.Errorf("after a note was saved: memory %q after %d reads, want the note and one read", m, cb.reads)
	}
	cb.mu.Lock()
	cb.notes = nil
	cb.mu.Unlock()
	if m := mem(); m != "" || cb.reads != 2 {
		t.Errorf("after the note was deleted: memory %q after %d reads, want none and a second read", m, cb.reads)
	}
}
