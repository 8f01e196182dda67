package openai

import (
	"testing"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/openai/openaitest"
)

// TestCompleteFinishReason checks that the provider's finish_reason
// reaches the response, for the parser to read the answer's end by.
func TestCompleteFinishReason(t *testing.T) {
	for _, reason := range []string{"stop", "length"} {
		t.Run(reason, func(t *testing.T) {
			srv := openaitest.NewServer(t, openaitest.Sequence(openaitest.Reply{
				Content:      `{"action":"send_message","channelId":"1","content":"cut`,
				FinishReason: reason,
			}), openaitest.WithAPIKey(testKey))
			c, _ := newTestClient(t, testConfig(srv.URL()), nil)
			resp, err := c.Complete(t.Context(), testRequest())
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.FinishReason != reason || !resp.Ended {
				t.Fatalf("finish %q, ended %v; want %q, ended", resp.FinishReason, resp.Ended, reason)
			}
		})
	}
}

// TestCompleteWaitsThroughAway checks that a retry's wait runs through the
// caller's planner.Away, which may give back what the caller holds, and
// that the wait itself still happens inside it.
func TestCompleteWaitsThroughAway(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Sequence(openaitest.Status(429, "2"), openaitest.Text(okAction)), openaitest.WithAPIKey(testKey))
	c, w := newTestClient(t, testConfig(srv.URL()), nil)
	aways := 0
	ctx := planner.WithAway(t.Context(), func(wait func() error) error {
		aways++
		before := len(w.all())
		err := wait()
		if len(w.all()) != before+1 {
			t.Errorf("the wait did not run inside away")
		}
		return err
	})
	if _, err := c.Complete(ctx, testRequest()); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if aways != 1 {
		t.Fatalf("%d waits through away, want 1 for the one retry", aways)
	}
}
