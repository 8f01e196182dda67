package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/airi-go/airi/state/sqlite"
	"github.com/airi-go/airi/state/storetest"
)

// TestHasNotesSeesOtherWriters saves and deletes a note through a second
// store on the same file, as `airi memory import` and `airi memory delete`
// do from another process, and checks that the first store sees each
// change once its next read checks for them (as it does when 5 ms
// passed since the last check).
func TestHasNotesSeesOtherWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "airi.db")
	runtime := open(t, path)
	defer runtime.Close()
	other := openShared(t, path)
	defer other.Close()

	storetest.RunHasNotes(t, runtime, other, func() { sqlite.Unchecked(runtime) })
}
