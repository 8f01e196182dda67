package inspector

// Status is the strip at the top of every page: whether the model, the
// store and each adapter work, where the prompts come from, the budget
// used today; and, while the model is failing, a banner above it.
type Status struct {
	Items []StatusItem
	// Alert, when set, is shown as a banner on every page.
	Alert string
}

// StatusItem is one entry of the status strip.
type StatusItem struct {
	Name   string
	OK     bool
	Detail string
}
