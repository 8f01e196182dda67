package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/state/sqlite"
)

// TestOpenHoldsTheLock: a database written by one store refuses a second
// Open until the first is closed, and names the holder; OpenShared and
// OpenReadOnly still get in.
func TestOpenHoldsTheLock(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "airi.db")
	first := open(t, path)
	_, err := sqlite.Open(ctx, path, zaptest.NewLogger(t))
	var inUse *sqlite.InUseError
	if !errors.As(err, &inUse) || !errors.Is(err, sqlite.ErrInUse) {
		t.Fatalf("second Open: %v, want an *InUseError wrapping ErrInUse", err)
	}
	if inUse.Path != path || inUse.PID <= 0 {
		t.Errorf("in use error names %q pid %d, want %q and this process", inUse.Path, inUse.PID, path)
	}
	shared := openShared(t, path)
	if err := shared.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := sqlite.OpenReadOnly(ctx, path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatalf("read-only open beside the holder: %v", err)
	}
	_ = ro.Close()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again := open(t, path)
	_ = again.Close()
}
