package postgres_test

import (
	"testing"

	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/postgres/pgtest"
	"github.com/airi-go/airi/state/storetest"
)

// BenchmarkEngineTick is the store work of one tick, the same work
// state/sqlite measures, for comparing the engines.
func BenchmarkEngineTick(b *testing.B) {
	storetest.BenchmarkTick(b, func(b *testing.B) state.Store { return open(b, pgtest.DSN(b)) })
}
