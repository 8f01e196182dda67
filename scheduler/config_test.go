package scheduler_test

import (
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/scheduler"
)

// TestNegativeDurationsRefused: a negative delay is an error naming the
// field, not a hidden "none"; the No* fields say "none".
func TestNegativeDurationsRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  scheduler.Config
		want string // in the error; empty: no complaint about durations
	}{
		{"negative debounce", scheduler.Config{Debounce: -1}, "Debounce is negative"},
		{"negative tick interval", scheduler.Config{TickInterval: -time.Second}, "TickInterval is negative"},
		{"negative continue delay", scheduler.Config{ContinueDelay: -1}, "ContinueDelay is negative"},
		{"none said with the No fields", scheduler.Config{NoDebounce: true, NoPeriodic: true, NoContinueDelay: true}, ""},
		{"zero values are the defaults", scheduler.Config{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// No dependencies: New reports them missing beside any setting error.
			_, err := scheduler.New(tc.cfg, scheduler.Deps{})
			if err == nil {
				t.Fatal("New accepted a scheduler without dependencies")
			}
			msg := err.Error()
			switch {
			case tc.want == "" && strings.Contains(msg, "negative"):
				t.Errorf("error = %q, want no complaint about durations", msg)
			case tc.want != "" && !strings.Contains(msg, tc.want):
				t.Errorf("error = %q, want it to say %q", msg, tc.want)
			}
		})
	}
}
