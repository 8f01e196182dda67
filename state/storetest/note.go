package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/airi-go/airi/state"
)

// normNotes strips what a store may change in time values, keeping instants.
func normNotes(ns []state.Note) []state.Note {
	out := make([]state.Note, len(ns))
	for i, n := range ns {
		n.Created, n.Updated = n.Created.UTC().Round(0), n.Updated.UTC().Round(0)
		if !n.Used.IsZero() {
			n.Used = n.Used.UTC().Round(0)
		}
		out[i] = n
	}
	return out
}

func noteIDs(ns []state.Note) []int64 {
	out := make([]int64, 0, len(ns))
	for _, n := range ns {
		out = append(out, n.ID)
	}
	return out
}

func saveNote(t *testing.T, s state.Store, n state.Note, lim state.NoteLimits) (state.Note, []state.Note) {
	t.Helper()
	got, evicted, err := s.SaveNote(context.Background(), n, lim)
	if err != nil {
		t.Fatalf("save note %q: %v", n.Text, err)
	}
	return got, evicted
}

func userNote(subject, text string, shareable bool, n int) state.Note {
	return state.Note{Scope: state.ScopeUser, Subject: subject, Name: "Name " + subject, Text: text, Shareable: shareable, Created: at(n), Updated: at(n)}
}

func testNotes(t *testing.T, s state.Store) {
	ctx := context.Background()
	none := state.NoteLimits{}
	g, _ := saveNote(t, s, state.Note{Scope: state.ScopeGlobal, Text: "  the harbour opens at six  ", Created: at(1), Updated: at(1)}, none)
	if g.ID == 0 || g.Text != "the harbour opens at six" {
		t.Errorf("saved global note = %+v; want an id and the trimmed text", g)
	}
	c1, _ := saveNote(t, s, state.Note{Scope: state.ScopeChannel, Subject: "-100", Text: "the group's quiz is on fridays", Created: at(2), Updated: at(2)}, none)
	saveNote(t, s, state.Note{Scope: state.ScopeChannel, Subject: "-200", Text: "another group", Created: at(3), Updated: at(3)}, none)
	ada, _ := saveNote(t, s, userNote("ada", "Ada is vegetarian", false, 4), none)
	adaShared, _ := saveNote(t, s, userNote("ada", "Ada plays the cello", true, 5), none)
	bo, _ := saveNote(t, s, userNote("bo", "Bo likes tea", true, 6), none)

	got, err := s.Note(ctx, ada.ID)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "note by id", normNotes([]state.Note{got}), normNotes([]state.Note{ada}))
	if ada.Name != "Name ada" || !ada.Created.Equal(at(4)) {
		t.Errorf("saved note = %+v", ada)
	}
	if _, err := s.Note(ctx, 9999); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("Note(9999) error = %v, want ErrNotFound", err)
	}

	tests := []struct {
		name string
		f    state.NoteFilter
		want []int64
	}{
		{"all, in scope order", state.NoteFilter{}, nil},
		{"one scope", state.NoteFilter{Scope: state.ScopeUser}, []int64{ada.ID, adaShared.ID, bo.ID}},
		{"one person", state.NoteFilter{Scope: state.ScopeUser, Subject: "bo"}, []int64{bo.ID}},
		{"direct chat with ada", state.NoteFilter{View: &state.NoteView{Channel: "ada-dm", Person: "ada"}}, []int64{g.ID, ada.ID, adaShared.ID}},
		{"group with ada and bo in the window", state.NoteFilter{View: &state.NoteView{Channel: "-100", Shared: []string{"bo", "ada"}}}, []int64{g.ID, c1.ID, adaShared.ID, bo.ID}},
		{"group without them", state.NoteFilter{View: &state.NoteView{Channel: "-200", Shared: []string{"cy"}}}, []int64{g.ID, c1.ID + 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns, err := s.Notes(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if want == nil {
				want = []int64{g.ID, c1.ID, c1.ID + 1, ada.ID, adaShared.ID, bo.ID}
			}
			equal(t, "note ids", noteIDs(ns), want)
		})
	}

	// An update replaces the text and flag, keeps scope, subject and creation.
	upd, _ := saveNote(t, s, state.Note{ID: ada.ID, Scope: state.ScopeUser, Subject: "ada", Text: "Ada is vegan now", Updated: at(40)}, none)
	if upd.Text != "Ada is vegan now" || !upd.Created.Equal(at(4)) || !upd.Updated.Equal(at(40)) || upd.Subject != "ada" {
		t.Errorf("updated note = %+v", upd)
	}
	if got, _ := s.Note(ctx, ada.ID); got.Text != "Ada is vegan now" {
		t.Errorf("after update the store holds %q", got.Text)
	}
	if _, _, err := s.SaveNote(ctx, state.Note{ID: 9999, Scope: state.ScopeGlobal, Text: "x"}, none); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("update of a missing note: %v, want ErrNotFound", err)
	}

	if err := s.TouchNotes(ctx, []int64{bo.ID}, at(50)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetNoteTick(ctx, []int64{bo.ID}, 77); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Note(ctx, bo.ID); !got.Used.Equal(at(50)) || got.Tick != 77 {
		t.Errorf("touched note used %v tick %d, want %v and 77", got.Used, got.Tick, at(50))
	}

	if err := s.DeleteNote(ctx, bo.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteNote(ctx, bo.ID); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("second delete: %v, want ErrNotFound", err)
	}
	if _, err := s.Note(ctx, bo.ID); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("deleted note still there: %v", err)
	}
}

func testNoteInvalid(t *testing.T, s state.Store) {
	ctx := context.Background()
	bad := []state.Note{
		{Scope: "planet", Text: "x"},
		{Scope: state.ScopeUser, Text: "no subject"},
		{Scope: state.ScopeGlobal, Text: "   "},
		{Scope: state.ScopeGlobal, Text: strings.Repeat("a", state.MaxNoteRunes+1)},
		{Scope: state.ScopeChannel, Subject: "c", Text: "x", Shareable: true},
	}
	for _, n := range bad {
		if _, _, err := s.SaveNote(ctx, n, state.NoteLimits{}); err == nil {
			t.Errorf("SaveNote(%+v): no error", n)
		}
	}
	ns, err := s.Notes(ctx, state.NoteFilter{})
	if err != nil || len(ns) != 0 {
		t.Errorf("invalid notes stored something: %v, %v", ns, err)
	}
}

func testNoteEviction(t *testing.T, s state.Store) {
	ctx := context.Background()
	lim := state.NoteLimits{MaxNotes: 3, MaxRunes: 40}
	var saved []state.Note
	for i, text := range []string{"one", "two", "three"} {
		n, ev := saveNote(t, s, userNote("ada", text, false, i), lim)
		if len(ev) != 0 {
			t.Fatalf("evicted %v under the cap", ev)
		}
		saved = append(saved, n)
	}
	// Another person's notes are not counted against ada's.
	other, _ := saveNote(t, s, userNote("bo", "bo's", false, 1), lim)
	// "one" was shown recently: "two" is the least recently used.
	if err := s.TouchNotes(ctx, []int64{saved[0].ID}, at(30)); err != nil {
		t.Fatal(err)
	}
	n4, ev := saveNote(t, s, userNote("ada", "four", false, 10), lim)
	equal(t, "evicted by count", noteIDs(ev), []int64{saved[1].ID})
	// Characters: a long note pushes out as many as it takes, never itself.
	long := strings.Repeat("x", 35)
	n5, ev := saveNote(t, s, userNote("ada", long, false, 11), lim)
	equal(t, "evicted by characters", noteIDs(ev), []int64{saved[2].ID, n4.ID})
	ns, err := s.Notes(ctx, state.NoteFilter{Scope: state.ScopeUser})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "kept", noteIDs(ns), []int64{saved[0].ID, n5.ID, other.ID})
}

func testForgetUser(t *testing.T, s state.Store) {
	ctx := context.Background()
	for _, ch := range []state.Channel{
		{ID: "dm-ada", Platform: "telegram"},
		{ID: "dm-bo", Platform: "telegram"},
		{ID: "grp", Platform: "telegram", Group: true},
	} {
		if err := s.UpsertChannel(ctx, ch); err != nil {
			t.Fatal(err)
		}
	}
	say := func(ch, pid, sender string, self bool, n int) state.Message {
		m := msg(ch, pid, n)
		m.SenderID, m.Self = sender, self
		return ingest(t, s, m)
	}
	a1 := say("dm-ada", "a1", "ada", false, 1)
	say("dm-ada", "a2", "bot", true, 2)
	say("grp", "g1", "ada", false, 3)
	g2 := say("grp", "g2", "bo", false, 4)
	b1 := say("dm-bo", "b1", "bo", false, 5)
	if err := s.MarkRead(ctx, []int64{a1.ID}); err != nil {
		t.Fatal(err)
	}
	appendAction(t, s, state.ActionRecord{ChannelID: "dm-ada", Name: "continue", OK: true, Time: at(6)})
	if _, err := s.AddTick(ctx, sampleTick("dm-ada", 7)); err != nil {
		t.Fatal(err)
	}
	saveNote(t, s, userNote("ada", "Ada is vegetarian", false, 8), state.NoteLimits{})
	saveNote(t, s, state.Note{Scope: state.ScopeChannel, Subject: "dm-ada", Text: "a chat note", Created: at(8), Updated: at(8)}, state.NoteLimits{})
	keep, _ := saveNote(t, s, userNote("bo", "Bo likes tea", false, 9), state.NoteLimits{})

	addReminder(t, s, state.Reminder{ChannelID: "grp", CreatedBy: "ada", Content: "ada's", Due: at(60)})
	addReminder(t, s, state.Reminder{ChannelID: "dm-ada", Content: "in her chat", Due: at(60)})
	keptRem := addReminder(t, s, state.Reminder{ChannelID: "grp", CreatedBy: "bo", Content: "bo's", Due: at(60)})

	got, err := s.ForgetUser(ctx, "ada")
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "forgotten", got, state.Forgotten{Notes: 1, Messages: 2, Channels: []string{"dm-ada"}})
	if rs, _ := s.ListReminders(ctx, state.ReminderFilter{}); len(rs) != 1 || rs[0].ID != keptRem.ID {
		t.Errorf("reminders after forgetting ada: %+v, want only bo's", rs)
	}

	for ch, want := range map[string][]int64{"dm-ada": nil, "grp": {g2.ID}, "dm-bo": {b1.ID}} {
		h, total, err := s.History(ctx, ch, 0)
		if err != nil {
			t.Fatal(err)
		}
		u, err := s.Unread(ctx, ch, 0)
		if err != nil {
			t.Fatal(err)
		}
		all := append(ids(h), ids(u)...)
		if len(all) == 0 {
			all = nil
		}
		equal(t, "messages left in "+ch, all, want)
		if total != len(h) {
			t.Errorf("history total of %s = %d, want %d", ch, total, len(h))
		}
	}
	if acts, _ := s.Actions(ctx, "dm-ada", 0); len(acts) != 0 {
		t.Errorf("actions of the forgotten chat: %v", acts)
	}
	if ts, _ := s.Ticks(ctx, state.TickFilter{ChannelID: "dm-ada"}); len(ts) != 0 {
		t.Errorf("ticks of the forgotten chat: %d", len(ts))
	}
	ns, err := s.Notes(ctx, state.NoteFilter{})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "notes left", noteIDs(ns), []int64{keep.ID})
	if _, err := s.ForgetUser(ctx, " "); err == nil {
		t.Error("ForgetUser with an empty id: no error")
	}
}

// seedNotes writes notes of every scope for Seed.
func seedNotes(t *testing.T, s state.Store) []state.Note {
	t.Helper()
	var out []state.Note
	for _, n := range []state.Note{
		{Scope: state.ScopeGlobal, Text: "tides table is on the wall", Created: at(40), Updated: at(40)},
		{Scope: state.ScopeChannel, Subject: "telegram:-5", Text: "the team meets on mondays", Created: at(41), Updated: at(41), Tick: 3},
		{Scope: state.ScopeUser, Subject: "u-m0", Name: "User m0", Text: "likes strong tea", Shareable: true, Created: at(42), Updated: at(42), Used: at(43)},
	} {
		got, _ := saveNote(t, s, n, state.DefaultNoteLimits(n.Scope))
		out = append(out, got)
	}
	return out
}

// checkNotes verifies that s holds exactly the seeded notes.
func checkNotes(t *testing.T, s state.Store, want []state.Note) {
	t.Helper()
	ns, err := s.Notes(context.Background(), state.NoteFilter{})
	if err != nil {
		t.Fatalf("check notes: %v", err)
	}
	equal(t, "notes", normNotes(ns), normNotes(want))
}

// RunHasNotes saves and deletes a note through other, a second store on
// the same database (as `airi memory import` and `airi memory delete` do
// from another process), and checks that runtime sees each change once
// settle returned: settle brings about what lets the engine see another
// process's write, as the time it documents passing (nil: nothing).
func RunHasNotes(t *testing.T, runtime interface {
	HasNotes(ctx context.Context) (bool, error)
}, other state.Store, settle func()) {
	t.Helper()
	ctx := context.Background()
	has := func(want bool) {
		t.Helper()
		if settle != nil {
			settle()
		}
		got, err := runtime.HasNotes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("HasNotes = %v, want %v", got, want)
		}
	}
	has(false)
	n, _ := saveNote(t, other, state.Note{Scope: state.ScopeGlobal, Text: "the harbour opens at six"}, state.DefaultNoteLimits(state.ScopeGlobal))
	has(true)
	if err := other.DeleteNote(ctx, n.ID); err != nil {
		t.Fatal(err)
	}
	has(false)
}
