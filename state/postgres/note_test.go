package postgres_test

import (
	"context"
	"testing"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/postgres"
	"github.com/airi-go/airi/state/postgres/pgtest"
)

var _ planner.NoteChecker = (*postgres.Store)(nil)

// TestHasNotesSeesOtherWriters saves and deletes a note through a second
// store on the same schema, as `airi memory import` and `airi memory
// delete` do from another process, and checks that the first store sees each
// change at once.
func TestHasNotesSeesOtherWriters(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	runtime := open(t, dsn)
	defer runtime.Close()
	other := open(t, dsn)
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
