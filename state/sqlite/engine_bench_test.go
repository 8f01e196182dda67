package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/storetest"
)

// BenchmarkEngineTick is the store work of one tick, the same work
// state/postgres measures, for comparing the engines.
func BenchmarkEngineTick(b *testing.B) {
	storetest.BenchmarkTick(b, func(b *testing.B) state.Store { return open(b, filepath.Join(b.TempDir(), "airi.db")) })
}
