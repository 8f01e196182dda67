package postgres_test

import (
	"testing"

	"github.com/airi-go/airi/state/postgres/pgtest"
	"github.com/airi-go/airi/state/storetest"
)

// TestHasNotesSeesOtherWriters saves and deletes a note through a second
// store on the same schema, as `airi memory import` and `airi memory
// delete` do from another process, and checks that the first store sees each
// change at once.
func TestHasNotesSeesOtherWriters(t *testing.T) {
	dsn := pgtest.DSN(t)
	runtime := open(t, dsn)
	defer runtime.Close()
	other := open(t, dsn)
	defer other.Close()

	storetest.RunHasNotes(t, runtime, other, nil)
}
