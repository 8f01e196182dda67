package schedule

import (
	"testing"
	"time"
)

func TestLateNoteReadsForPeople(t *testing.T) {
	for _, tt := range []struct {
		late time.Duration
		want string
	}{
		{40*time.Second + 300*time.Millisecond, "40 s"},
		{12*time.Minute + 10*time.Second, "12 min"},
		{2*time.Hour + 30*time.Minute + 20*time.Second, "2 h 30 min"},
		{3 * time.Hour, "3 h"},
	} {
		if got := formatLate(tt.late); got != tt.want {
			t.Errorf("formatLate(%v) = %q, want %q", tt.late, got, tt.want)
		}
	}
}
