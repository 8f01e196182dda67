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
		{Name: NameSendMessage, Params: SendMessage{}, Handler: h.SendMessage},
		{Name: NameReact, Params: React{}, Handler: h.React,
			Description: "An emoji (👍) on a message."},
		{Name: NameReadUnread, Params: ReadUnreadMessages{}, Handler: h.ReadUnread},
		{Name: NameSleep, Params: Sleep{}, Handler: h.Sleep,
			Description: "Pause (ms); a new message wakes you."},
		{Name: NameContinue, Params: Continue{}, Handler: h.Continue,
			Description: "Nothing to answer."},
		{Name: NameBreak, Params: Break{}, Handler: h.Break,
			Description: "Continue, clearing this chat's action history."},
		{Name: NameListChannels, Params: ListChannels{}, Handler: h.ListChannels},
		{Name: NameRemember, Params: Remember{}, Handler: h.Remember,
			Description: "A lasting note, no secrets; scope user, channel or global."},
		{Name: NameForget, Params: Forget{}, Handler: h.Forget},
		{Name: NameSchedule, Params: Schedule{}, Handler: h.Schedule,
			Description: "A reminder."},
		{Name: NameListSchedules, Params: ListSchedules{}, Handler: h.ListSchedules},
		{Name: NameCancelSchedule, Params: CancelSchedule{}, Handler: h.CancelSchedule},
	}
}

// NewBuiltinRegistry returns a registry of the built-in actions bound to h.
func NewBuiltinRegistry(h Handlers) (*Registry, error) {
	return NewRegistry(BuiltinSpecs(h)...)
}
