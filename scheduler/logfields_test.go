package scheduler_test

import (
	"context"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/scheduler"
)

// TestLogLinesNameTheChatAndTheSender checks that the lines about a
// message carry the chat's title and the sender's name beside the ids.
func TestLogLinesNameTheChatAndTheSender(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	m := newModel(func(context.Context, int, planner.Request) (string, error) {
		return `{"action":"send_message","channelId":"c1","content":"hello back"}`, nil
	})
	h := newHarnessLog(t, scheduler.Config{NoDebounce: true}, m, zap.New(core))
	h.say("secret words")
	h.sched.Wake(context.Background(), "c1", "message")

	tests := []struct {
		msg    string
		fields map[string]any
	}{
		{"message received", map[string]any{"channel": "c1", "title": "test", "sender_name": "ann"}},
		{"message sent", map[string]any{"channel": "c1", "title": "test"}},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			lines := logged(logs, tt.msg)
			if len(lines) != 1 {
				t.Fatalf("%d %q lines, want 1", len(lines), tt.msg)
			}
			got := lines[0].ContextMap()
			for k, v := range tt.fields {
				if got[k] != v {
					t.Errorf("%s = %v, want %v (fields %v)", k, got[k], v, got)
				}
			}
		})
	}
}
