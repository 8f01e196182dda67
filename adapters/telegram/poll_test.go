package telegram

import (
	"errors"
	"net/http"
	"testing"
	"time"

	ta "github.com/mymmrac/telego/telegoapi"
)

func TestPollWait(t *testing.T) {
	network := errors.New("connection reset")
	flood := &ta.Error{ErrorCode: http.StatusTooManyRequests, Parameters: &ta.ResponseParameters{RetryAfter: 42}}
	conflict := &ta.Error{ErrorCode: http.StatusConflict, Description: "Conflict: terminated by other getUpdates request"}
	tests := []struct {
		name string
		n    int
		err  error
		want time.Duration
	}{
		{"first failure", 1, network, 500 * time.Millisecond},
		{"doubles", 4, network, 4 * time.Second},
		{"last doubling", 6, network, 16 * time.Second},
		{"capped", 7, network, 30 * time.Second},
		{"retry_after as asked", 1, flood, 42 * time.Second},
		{"another poller", 3, conflict, 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pollWait(tt.n, tt.err); got != tt.want {
				t.Errorf("pollWait(%d, %v) = %v, want %v", tt.n, tt.err, got, tt.want)
			}
		})
	}
}
