package sqlite

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that a closed store leaves no goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
