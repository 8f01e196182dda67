package state

import "time"

// UpdateRetention is how long a handled platform update stays recorded
// (see Store.MarkUpdate). Telegram gives up redelivering an update after
// a day; twice that leaves a margin.
const UpdateRetention = 48 * time.Hour
