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
	ChannelID string `json:"channelId,omitempty" jsonschema:"minLength=1,description=This chat when left out, or another listed in the state."`
	// Content and ReplyTo are described by the protocol section, which
	// teaches replyTo with an example; a description here would only
	// lengthen every request.
	Content string `json:"content"`
	ReplyTo string `json:"replyTo,omitempty"`
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
	// ChannelID needs no description: the action's own says what it reads.
	ChannelID string `json:"channelId,omitempty" jsonschema:"minLength=1"`
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
