package actions

// Names of the reminder actions; package schedule implements them.
const (
	NameSchedule       = "schedule"
	NameListSchedules  = "list_schedules"
	NameCancelSchedule = "cancel_schedule"
)

// Schedule sets a reminder: content sent to the chat at a later time,
// once or repeatedly.
type Schedule struct {
	ChannelID string `json:"channelId" jsonschema:"minLength=1,description=This channel."`
	Content   string `json:"content" jsonschema:"minLength=1,maxLength=2000,description=The message sent at the due time as it should appear."`
	At        string `json:"at,omitempty" jsonschema_description:"RFC 3339, or YYYY-MM-DD HH:MM in the chat's time zone."`
	After     string `json:"after,omitempty" jsonschema_description:"A duration from now such as 90s or 2h."`
	Every     string `json:"every,omitempty" jsonschema_description:"Repeat: daily, weekly or a duration of at least 1h."`
	Compose   bool   `json:"compose,omitempty" jsonschema_description:"Wake you at the due time to write it instead."`
}

// ListSchedules lists the chat's pending reminders.
type ListSchedules struct {
	ChannelID string `json:"channelId,omitempty"`
}

// CancelSchedule cancels a pending reminder of the chat.
type CancelSchedule struct {
	ID string `json:"id" jsonschema:"minLength=1"`
}
