package replay_test

import (
	"context"
	"testing"

	"github.com/airi-go/airi/scheduler/replay"
)

// TestRecordingStoppedMidWake replays sessions whose bot stopped during a
// model call: the wake's recording ends where the next call began. Such a
// session replays cleanly when it ends there or when a restart follows;
// the same gap followed by an ordinary wake is still a divergence.
func TestRecordingStoppedMidWake(t *testing.T) {
	// Each case cuts a session right after a send that continues the wake
	// ("then": "next"), where a stop would leave it.
	tests := []struct {
		name    string
		file    string
		edit    func(t *testing.T, s *replay.Session)
		diverge bool
	}{
		{"stopped at the end of the recording", "direct-chat.jsonl", func(t *testing.T, s *replay.Session) {
			s.Items = s.Items[:firstSendItem(t, s)+1]
		}, false},
		{"restarted after the stop", "direct-chat.jsonl", func(t *testing.T, s *replay.Session) {
			i := firstSendItem(t, s)
			s.Items = append(s.Items[:i+1], s.Items[i+2:]...) // drop the continue after the send
			for _, it := range s.Items[i+1:] {
				if it.Tick != nil {
					it.Tick.Trigger = "restart"
					break
				}
			}
		}, false},
		{"a gap followed by an ordinary wake", "direct-chat.jsonl", func(t *testing.T, s *replay.Session) {
			i := firstSendItem(t, s)
			s.Items = append(s.Items[:i+1], s.Items[i+2:]...)
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := readSession(t, tc.file)
			tc.edit(t, s)
			rep, err := replay.Play(context.Background(), s, opener(t, ""), replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := rep.Divergence != nil; got != tc.diverge {
				t.Fatalf("divergence = %v, want %v", rep.Divergence, tc.diverge)
			}
		})
	}
}

// firstSendItem returns the item index of the session's first send tick
// that is followed by a continue tick of the same wake (a send that asked
// for the next call).
func firstSendItem(t *testing.T, s *replay.Session) int {
	t.Helper()
	for i, it := range s.Items {
		if it.Tick != nil && len(it.Tick.Effects) > 0 &&
			i+1 < len(s.Items) && s.Items[i+1].Tick != nil && s.Items[i+1].Tick.Raw == `{"action":"continue"}` {
			return i
		}
	}
	t.Fatal("no send followed by its continue in the session")
	return 0
}
