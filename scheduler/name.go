package scheduler

import "github.com/airi-go/airi/scheduler/attention"

// botName is the name the bot goes by now.
func (s *Scheduler) botName() string {
	if s.cfg.Name != nil {
		if n := s.cfg.Name(); n != "" {
			return n
		}
	}
	return s.cfg.BotName
}

// withCurrentName puts the bot's current name into set's names, which
// address the bot in every channel, when the name can change while the
// scheduler runs.
func (s *Scheduler) withCurrentName(set attention.Settings) attention.Settings {
	if s.cfg.Name != nil {
		set.Names = attention.NormalizeWords([]string{s.botName()})
	}
	return set
}
