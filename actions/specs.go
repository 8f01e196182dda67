package actions

// Handlers binds the built-in actions to their implementations. A nil
// handler leaves the action describable and parseable but not runnable.
type Handlers struct {
	SendMessage, ReadUnread, Sleep, Continue, Break, ListChannels Handler
	Remember, Forget                                              Handler
	React                                                         Handler
	Schedule, ListSchedules, CancelSchedule                       Handler
}

// BuiltinSpecs returns the built-in actions bound to h, in catalog order.
func BuiltinSpecs(h Handlers) []Spec {
	return []Spec{
		{Name: NameSendMessage, Params: SendMessage{}, Handler: h.SendMessage,
			Description: "Send one message to a channel; it ends your turn."},
		{Name: NameReact, Params: React{}, Handler: h.React,
			Description: "Put an emoji (👍) on a message; ends your turn."},
		{Name: NameReadUnread, Params: ReadUnreadMessages{}, Handler: h.ReadUnread,
			Description: "Read a channel's unread messages not shown in the state."},
		{Name: NameSleep, Params: Sleep{}, Handler: h.Sleep,
			Description: "Pause this channel for a while; a new message wakes it early."},
		{Name: NameContinue, Params: Continue{}, Handler: h.Continue,
			Description: "End this turn: nothing needs a reply."},
		{Name: NameBreak, Params: Break{}, Handler: h.Break,
			Description: "End this turn and clear this channel's action history."},
		{Name: NameListChannels, Params: ListChannels{}, Handler: h.ListChannels,
			Description: "List the channels you have seen, with their titles and unread counts."},
		{Name: NameRemember, Params: Remember{}, Handler: h.Remember,
			Description: "Keep a lasting fact or preference past the history, never secrets or credentials."},
		{Name: NameForget, Params: Forget{}, Handler: h.Forget,
			Description: "Delete a note that is no longer true."},
		{Name: NameSchedule, Params: Schedule{}, Handler: h.Schedule,
			Description: `Remind this chat at "at" (RFC 3339 or local "YYYY-MM-DD HH:MM") or "after" ("2h"); every: daily, weekly or 1h+.`},
		{Name: NameListSchedules, Params: ListSchedules{}, Handler: h.ListSchedules,
			Description: "This chat's reminders."},
		{Name: NameCancelSchedule, Params: CancelSchedule{}, Handler: h.CancelSchedule,
			Description: "Cancel one."},
	}
}

// NewBuiltinRegistry returns a registry of the built-in actions bound to h.
func NewBuiltinRegistry(h Handlers) (*Registry, error) {
	return NewRegistry(BuiltinSpecs(h)...)
}
