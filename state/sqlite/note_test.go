package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

var _ planner.NoteChecker = (*sqlite.Store)(nil)

// TestHasNotesSeesOtherWriters saves and deletes a note through a second
// store on the same file, as `airi memory import` and `airi memory delete`
// do from another process, and checks that the first store sees each
// change at once.
func TestHasNotesSeesOtherWriters(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "airi.db")
	runtime := open(t, path)
	defer runtime.Close()
	other := open(t, path)
	defer other.Close()

	has := func(want bool) {
		t.Helper()
		got, err := runtime.HasNotes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("HasNotes = %v, want %v", got, want)
		}
	}
	has(false)
	n, _, err := other.SaveNote(ctx, state.Note{Scope: state.ScopeGlobal, Text: "the harbour opens at six"}, state.DefaultNoteLimits(state.ScopeGlobal))
	if err != nil {
		t.Fatal(err)
	}
	has(true)
	if err := other.DeleteNote(ctx, n.ID); err != nil {
		t.Fatal(err)
	}
	has(false)
}
