package actions

// Names of the built-in actions.
const (
	NameSendMessage  = "send_message"
	NameReadUnread   = "read_unread_messages"
	NameSleep        = "sleep"
	NameContinue     = "continue"
	NameBreak        = "break"
	NameListChannels = "list_channels"
)

// SendMessage sends a message to a channel.
type SendMessage struct {
	// ChannelID, Content and ReplyTo are described by the protocol
	// section, which says that a left-out channelId means the chat itself
	// and teaches replyTo with an example; descriptions here would only
	// lengthen every request.
	ChannelID string `json:"channelId,omitempty" jsonschema:"minLength=1"`
	Content   string `json:"content"`
	ReplyTo   string `json:"replyTo,omitempty"`
	// Then says what follows a send that goes out: ThenEnd (the default
	// when absent) ends the turn, ThenNext asks for another call.
	// The protocol section teaches it.
	Then string `json:"then,omitempty" jsonschema:"enum=next,enum=end"`
}

// Values of SendMessage.Then.
const (
	// ThenEnd ends the turn once the message went out (the default).
	ThenEnd = "end"
	// ThenNext asks for another call after the send.
	ThenNext = "next"
)

// ReadUnreadMessages returns the unread messages of a channel and marks them read.
type ReadUnreadMessages struct {
	// ChannelID needs no description: the action's own says what it reads.
	ChannelID string `json:"channelId,omitempty" jsonschema:"minLength=1"`
}

// Sleep suspends the channel's loop; a new message ends it early.
type Sleep struct {
	// Duration is in milliseconds, as the action's description says; the
	// runtime bounds it.
	Duration *int64 `json:"duration,omitempty" jsonschema:"minimum=0"`
}

// Continue ends the current wake: nothing more to do until something happens.
type Continue struct{}

// Break ends the current wake and clears the channel's working memory (its action history).
type Break struct{}

// ListChannels lists the channels the bot has seen, with titles and unread counts.
type ListChannels struct{}
