package runtime

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"
)

func TestOpenStore(t *testing.T) {
	ctx := context.Background()
	log := zaptest.NewLogger(t)
	sc := StoreConfig{DBPath: filepath.Join(t.TempDir(), "airi.db")}
	if err := sc.Exists(); err == nil || !strings.Contains(err.Error(), "no database at DB_PATH=") {
		t.Fatalf("Exists before the first open = %v, want no database", err)
	}
	if _, err := OpenStoreBeside(ctx, sc, log, false); err == nil {
		t.Fatal("an operator's command opened a database that is not there")
	}
	st, err := OpenStore(ctx, sc, log, true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := sc.Exists(); err != nil {
		t.Fatal(err)
	}
	// The first store holds the lock: a second writer is refused with a
	// problem for the operator, a reader beside it is not.
	_, err = OpenStore(ctx, sc, log, true)
	var p *StoreProblemError
	if !errors.As(err, &p) {
		t.Fatalf("second open = %v, want a *StoreProblemError", err)
	}
	for _, write := range []bool{false, true} {
		s, err := OpenStoreBeside(ctx, sc, log, write)
		if err != nil {
			t.Fatalf("beside the bot (write %v): %v", write, err)
		}
		if _, err := s.Channels(ctx); err != nil {
			t.Fatal(err)
		}
		_ = s.Close()
	}
	ro, err := OpenStoreReadOnly(ctx, sc, log)
	if err != nil {
		t.Fatal(err)
	}
	_ = ro.Close()
}

func TestRootCause(t *testing.T) {
	inner := errors.New("permission denied")
	err := errors.Join(errors.New("first"), wrap(wrap(inner)))
	if got := RootCause(err); got != inner {
		t.Errorf("RootCause = %v, want %v", got, inner)
	}
}

func wrap(err error) error { return &wrapped{err} }

type wrapped struct{ err error }

func (w *wrapped) Error() string { return "open: " + w.err.Error() }
func (w *wrapped) Unwrap() error { return w.err }
