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
	ChannelID string `json:"channelId" jsonschema:"minLength=1,description=This channel or another listed in the state."`
	Content   string `json:"content" jsonschema:"description=The message as it should appear."`
	ReplyTo   string `json:"replyTo,omitempty" jsonschema:"description=Id of the message replied to."`
	// Then says what follows a send that goes out: ThenEnd (the default
	// when absent) ends the turn, ThenNext asks for another call.
	Then string `json:"then,omitempty" jsonschema:"enum=next,enum=end" jsonschema_description:"\"next\" to act again after it."`
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
	ChannelID string `json:"channelId" jsonschema:"minLength=1,description=Id of the channel whose unread messages to read."`
}

// Sleep suspends the channel's loop; a new message ends it early.
type Sleep struct {
	Duration *int64 `json:"duration,omitempty" jsonschema:"minimum=0,description=Milliseconds; the runtime bounds it."`
}

// Continue ends the current wake: nothing more to do until something happens.
type Continue struct{}

// Break ends the current wake and clears the channel's working memory (its action history).
type Break struct{}

// ListChannels lists the channels the bot has seen, with titles and unread counts.
type ListChannels struct{}
