package actions

// Handlers binds the built-in actions to their implementations. A nil
// handler leaves the action describable and parseable but not runnable.
type Handlers struct {
	SendMessage, ReadUnread, Sleep, Continue, Break, ListChannels Handler
}

// BuiltinSpecs returns the built-in actions bound to h, in catalog order.
func BuiltinSpecs(h Handlers) []Spec {
	return []Spec{
		{Name: NameSendMessage, Params: SendMessage{}, Handler: h.SendMessage,
			Description: "Send one message to a channel; it ends your turn. Read new messages first; never send twice in a row without new input."},
		{Name: NameReadUnread, Params: ReadUnreadMessages{}, Handler: h.ReadUnread,
			Description: "Read the messages of a channel that are still unread (beyond those shown in the state, or another channel's)."},
		{Name: NameSleep, Params: Sleep{}, Handler: h.Sleep,
			Description: "Pause this channel for a while; a new message wakes it early."},
		{Name: NameContinue, Params: Continue{}, Handler: h.Continue,
			Description: "End this turn and wait for something new to happen. Use it when nothing needs a reply."},
		{Name: NameBreak, Params: Break{}, Handler: h.Break,
			Description: "End this turn and forget the action history of this channel, starting fresh."},
		{Name: NameListChannels, Params: ListChannels{}, Handler: h.ListChannels,
			Description: "List the channels you have seen, with their titles and unread counts."},
	}
}

// NewBuiltinRegistry returns a registry of the built-in actions bound to h.
func NewBuiltinRegistry(h Handlers) (*Registry, error) {
	return NewRegistry(BuiltinSpecs(h)...)
}
