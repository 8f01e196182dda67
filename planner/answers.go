package planner

import (
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/state"
)

// Bounds of the other bots' answers shown under a person's new message:
// enough to tell what was said, not to pay for an answer twice (it is
// usually a new message of the same request as well).
const (
	maxAnswersShown = 3
	maxAnswerRunes  = 100
)

// otherBotsAnswers returns, by index in incoming, what other bots already
// answered to each new message of a person: the bots' messages (new or in
// history) that reply to it, and their new messages without a reply that
// arrived after it, before the next person's. Several bots addressed by
// one message would otherwise each answer it as if alone. It returns nil
// when no bot answered.
func otherBotsAnswers(incoming, history []state.Message) [][]prompts.Answer {
	person := func(m state.Message) bool { return !m.Self && !m.FromBot }
	other := func(m state.Message) bool { return !m.Self && m.FromBot }
	byRef := map[string]int{}
	for i, m := range incoming {
		if person(m) && m.PlatformID != "" {
			byRef[m.PlatformID] = i
		}
	}
	var out [][]prompts.Answer
	add := func(i int, m state.Message) {
		if out == nil {
			out = make([][]prompts.Answer, len(incoming))
		}
		if len(out[i]) < maxAnswersShown {
			out[i] = append(out[i], prompts.Answer{Sender: senderName(m.SenderName), Content: prompts.Clip(m.Content, maxAnswerRunes)})
		}
	}
	for _, m := range history {
		if i, ok := byRef[m.ReplyTo]; ok && other(m) && m.ReplyTo != "" {
			add(i, m)
		}
	}
	last := -1
	for i, m := range incoming {
		switch {
		case person(m):
			last = i
		case !other(m):
		case m.ReplyTo != "":
			if i, ok := byRef[m.ReplyTo]; ok {
				add(i, m)
			}
		case last >= 0:
			add(last, m)
		}
	}
	return out
}
