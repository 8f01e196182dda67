package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/state"
)

// Habit is how the built-in model answers the calls of one wake. Models
// differ: some reply at once, many first read the unread messages (the
// habit the reference protocol teaches), some also end the wake with an
// explicit continue. Each takes its own number of calls per wake, and
// with them its pauses between calls.
type Habit string

// The built-in model's habits.
const (
	// HabitReply sends a reply in the first call.
	HabitReply Habit = "reply"
	// HabitReadReply calls read_unread_messages, then replies.
	HabitReadReply Habit = "read-reply"
	// HabitReadReplyContinue reads, replies asking for another call
	// ("then": "next"), then ends the wake with continue.
	HabitReadReplyContinue Habit = "read-reply-continue"
)

// Habits lists the habits, for flags and errors.
var Habits = []Habit{HabitReply, HabitReadReply, HabitReadReplyContinue}

// ParseHabit reads a habit as --model spells it.
func ParseHabit(s string) (Habit, error) {
	for _, h := range Habits {
		if string(h) == s {
			return h, nil
		}
	}
	return "", fmt.Errorf("model habit %q: want reply, read-reply or read-reply-continue", s)
}

func (h Habit) orDefault() Habit {
	if h == "" {
		return HabitReply
	}
	return h
}

// steps is the number of calls the habit makes in one wake.
func (h Habit) steps() int {
	switch h {
	case HabitReadReply:
		return 2
	case HabitReadReplyContinue:
		return 3
	}
	return 1
}

// model answers every request at once or after its latency, following
// its habit: the calls of each channel go through the habit's steps in
// turn, the step that replies sending to the request's channel.
type model struct {
	latency time.Duration
	habit   Habit
	rec     *recorder
	n       atomic.Int64

	mu sync.Mutex
	// step is the next step of each channel's habit.
	step map[string]int
}

func newModel(latency time.Duration, habit Habit, rec *recorder) *model {
	return &model{latency: latency, habit: habit.orDefault(), rec: rec, step: map[string]int{}}
}

func (m *model) Complete(ctx context.Context, req planner.Request) (planner.Response, error) {
	m.rec.callStarted(req)
	defer m.rec.callEnded(req.ChannelID)
	start := time.Now()
	if m.latency > 0 {
		t := time.NewTimer(m.latency)
		select {
		case <-ctx.Done():
			t.Stop()
			return planner.Response{}, fmt.Errorf("bench model: %w", ctx.Err())
		case <-t.C:
		}
	}
	return planner.Response{
		Content:      m.answer(req.ChannelID),
		Usage:        state.Usage{PromptTokens: 1500, CompletionTokens: 20},
		Latency:      time.Since(start),
		Attempts:     1,
		FinishReason: "stop",
		Ended:        true,
	}, nil
}

// answer is the next step of the channel's habit.
func (m *model) answer(channelID string) string {
	m.mu.Lock()
	step := m.step[channelID]
	m.step[channelID] = (step + 1) % m.habit.steps()
	m.mu.Unlock()
	id, _ := json.Marshal(channelID)
	// Each reply differs: the runtime refuses to send one text twice.
	reply := `{"action":"send_message","channelId":` + string(id) + `,"content":"noted, thanks (` + strconv.FormatInt(m.n.Add(1), 10) + `)"`
	switch {
	case m.habit == HabitReply:
		return reply + `}`
	case step == 0:
		return `{"action":"read_unread_messages","channelId":` + string(id) + `}`
	case m.habit == HabitReadReply:
		return reply + `}`
	case step == 1:
		return reply + `,"then":"next"}`
	}
	return `{"action":"continue"}`
}
