package planner

import (
	"encoding/json"

	"github.com/airi-go/airi/state"
)

// PrefixShare returns the share of cur's serialized messages (the JSON
// array a chat completion request carries) that is identical to the start
// of prev's: what a provider's prefix cache can reuse from the previous
// request of the channel. It is 0 when cur is empty.
func PrefixShare(prev, cur []state.ChatMessage) float64 {
	a, errA := json.Marshal(prev)
	b, errB := json.Marshal(cur)
	if errA != nil || errB != nil || len(b) == 0 || len(cur) == 0 {
		return 0
	}
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return float64(n) / float64(len(b))
}
