package scheduler

// TriggerScheduled: a reminder set to be composed fell due; the wake runs
// whether or not anything is unread, and the reminder is among the new
// messages of its state.
const TriggerScheduled Trigger = "scheduled"

// Signal schedules a wake of the channel now, for a reason outside the
// chat (a reminder falling due), as the channel's loop schedules its own:
// it runs on the loop's goroutine once a wake in flight ends. A channel
// the bot may not act in is left alone.
func (s *Scheduler) Signal(channelID string, trigger Trigger) {
	if !s.allowed(channelID) {
		return
	}
	s.loopFor(channelID).signal(trigger)
}
