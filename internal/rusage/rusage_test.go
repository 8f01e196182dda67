//go:build unix

package rusage

import "testing"

func TestCountsThisProcess(t *testing.T) {
	before := CPU()
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	if after := CPU(); after <= before {
		t.Errorf("CPU went from %v to %v over a busy loop (%d)", before, after, x)
	}
	if MaxRSSMB() <= 0 {
		t.Error("MaxRSSMB is not positive")
	}
}
