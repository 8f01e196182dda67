package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
	"github.com/airi-go/airi/state/storetest"
)

func open(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	return s
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) state.Store {
		return open(t, filepath.Join(t.TempDir(), "airi.db"))
	})
}
