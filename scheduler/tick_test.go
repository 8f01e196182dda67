package scheduler

import (
	"errors"
	"fmt"
	"testing"

	"github.com/airi-go/airi/planner"
)

// TestStepErrorNamesTheStepOnce: a failed step is named before its cause
// unless the cause names it already, and the cause stays matchable.
func TestStepErrorNamesTheStepOnce(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"named", &stepError{stepBuild, errors.New("template missing")}, "build prompt: template missing"},
		{"cause names it", &stepError{stepCall, fmt.Errorf("model call: %w", planner.ErrPermanent)}, "model call: " + planner.ErrPermanent.Error()},
		{"cause names it with more", &stepError{stepCall, errors.New("model call failed after 3 attempts: 503")}, "model call failed after 3 attempts: 503"},
		{"prefix of a word", &stepError{stepCall, errors.New("model calls refused")}, "model call: model calls refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
	err := fmt.Errorf("wake: %w", &stepError{stepCall, fmt.Errorf("model call: %w", planner.ErrPermanent)})
	if !errors.Is(err, planner.ErrPermanent) {
		t.Errorf("%v does not match its cause", err)
	}
	if got := stepOf(err); got != stepCall {
		t.Errorf("stepOf = %q, want %q", got, stepCall)
	}
	if got := stepOf(errors.New("other")); got != "" {
		t.Errorf("stepOf of an error of no step = %q", got)
	}
}
