package attention

import (
	"testing"
	"time"
)

// TestBotPairBudget plays two bots answering each other in a group with
// a high reply cap: the pair's messages (the other bot's and this bot's
// replies) wake the channel until they pass the budget, then only a
// human does, for PairQuiet; another bot's pair in the same chat has the
// same quiet, and the budget is whole again after it.
func TestBotPairBudget(t *testing.T) {
	s := Defaults()
	s.Mode, s.IgnoreBots, s.BotReplies = ModeAll, false, 100
	s.BotPairRate = Rate{N: 6, Per: time.Minute}
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	var c Channel
	bot := func(at time.Duration) Decision {
		return c.Decide(&s, Message{SenderID: "b2", Content: "your turn", Time: t0.Add(at), Group: true, FromBot: true})
	}
	woke := 0
	at := time.Duration(0)
	for range 10 {
		at += time.Second
		d := bot(at)
		if !d.Wake {
			if d.Reason != SkipBotPair {
				t.Fatalf("bot message %d skipped for %q, want %q", woke+1, d.Reason, SkipBotPair)
			}
			break
		}
		woke++
		if r := c.HoldsBots(&s, t0.Add(at)); r != "" {
			t.Fatalf("a call within the budget is held: %q", r)
		}
		at += time.Second
		c.Spoke(t0.Add(at))
	}
	// Six exchanges in the minute: three of theirs and three replies,
	// then their fourth message goes over.
	if woke != 3 {
		t.Errorf("the other bot woke this one %d times, want 3 (6 exchanges)", woke)
	}
	if r := c.HoldsBots(&s, t0.Add(at)); r != SkipBotPair {
		t.Errorf("HoldsBots after the budget = %q, want %q", r, SkipBotPair)
	}
	if d := c.Decide(&s, Message{SenderID: "b3", Content: "me too", Time: t0.Add(at + time.Second), Group: true, FromBot: true}); d.Wake {
		t.Error("another bot woke the channel during the quiet")
	}
	human := c.Decide(&s, Message{SenderID: "u1", Content: "stop it you two", Time: t0.Add(at + 2*time.Second), Group: true})
	if !human.Wake {
		t.Errorf("a human's message during the quiet: %+v, want a wake", human)
	}
	if r := c.HoldsBots(&s, t0.Add(at+2*time.Second)); r != "" {
		t.Errorf("HoldsBots after a human's message = %q, want none", r)
	}
	after := at + 2*time.Second + PairQuiet
	if d := bot(after); !d.Wake {
		t.Errorf("the other bot after the quiet: %+v, want a wake", d)
	}
}

// TestHoldsBotsReplyCap: the reply cap stops a wake's next call as well
// as the next wake, once the newest message is a bot's.
func TestHoldsBotsReplyCap(t *testing.T) {
	s := Defaults()
	s.Mode, s.IgnoreBots, s.BotReplies = ModeAll, false, 2
	s.BotPairRate = Rate{}
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	var c Channel
	for i := range 2 {
		at := t0.Add(time.Duration(i) * time.Minute)
		if d := c.Decide(&s, Message{SenderID: "b2", Content: "hi", Time: at, Group: true, FromBot: true}); !d.Wake {
			t.Fatalf("bot message %d: %+v", i+1, d)
		}
		c.Spoke(at)
	}
	c.Decide(&s, Message{SenderID: "b2", Content: "hi", Time: t0.Add(3 * time.Minute), Group: true, FromBot: true})
	if r := c.HoldsBots(&s, t0.Add(3*time.Minute)); r != SkipBot {
		t.Errorf("HoldsBots past the reply cap = %q, want %q", r, SkipBot)
	}
	ignoring := s
	ignoring.IgnoreBots = true
	if r := c.HoldsBots(&ignoring, t0.Add(3*time.Minute)); r != "" {
		t.Errorf("HoldsBots with bots ignored = %q; their messages woke nothing to hold", r)
	}
}
