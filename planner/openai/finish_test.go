package openai

import (
	"testing"

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
