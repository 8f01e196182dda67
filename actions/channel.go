package actions

// channelParams is implemented by the parameters of actions that name a
// channel and may leave it out: the channel whose tick produced the action
// is meant, as a person in a chat means "here".
type channelParams interface {
	defaultChannel(id string)
}

func (p *SendMessage) defaultChannel(id string)        { fillChannel(&p.ChannelID, id) }
func (p *React) defaultChannel(id string)              { fillChannel(&p.ChannelID, id) }
func (p *ReadUnreadMessages) defaultChannel(id string) { fillChannel(&p.ChannelID, id) }
func (p *Schedule) defaultChannel(id string)           { fillChannel(&p.ChannelID, id) }
func (p *ListSchedules) defaultChannel(id string)      { fillChannel(&p.ChannelID, id) }

func fillChannel(field *string, id string) {
	if *field == "" {
		*field = id
	}
}

// InChannel returns a with an omitted channelId set to channel, the
// channel whose tick produced the action, so that what is recorded and
// dispatched always names the channel it acts on. Parameters given by
// value, and actions without a channel, are returned as they are.
func InChannel(a Action, channel string) Action {
	if p, ok := a.Params.(channelParams); ok && channel != "" {
		p.defaultChannel(channel)
	}
	return a
}
