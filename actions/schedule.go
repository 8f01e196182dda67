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
	ChannelID string `json:"channelId,omitempty" jsonschema:"minLength=1"`
	Content   string `json:"content" jsonschema:"minLength=1,maxLength=2000"`
	At        string `json:"at,omitempty"`
	After     string `json:"after,omitempty"`
	Every     string `json:"every,omitempty"`
	Compose   bool   `json:"compose,omitempty"`
}

// ListSchedules lists the chat's pending reminders.
type ListSchedules struct {
	ChannelID string `json:"channelId,omitempty"`
}

// CancelSchedule cancels a pending reminder of the chat.
type CancelSchedule struct {
	ID string `json:"id" jsonschema:"minLength=1"`
}
