package admin

import (
	"context"

	"github.com/airi-go/airi/admin/inspector"
)

// Status is what the inspector's status strip shows beside the readiness
// checks.
type Status struct {
	// Facts follow the checks: where the prompts come from, the budget
	// used today.
	Facts []Check
	// Alert, when set, is a banner on every page: the model is failing.
	Alert string
}

// status is the inspector's strip: the readiness checks (the store, each
// adapter, the model), then the facts of Options.Status.
func (s *Server) status(ctx context.Context) inspector.Status {
	var out inspector.Status
	var checks []Check
	if s.checks != nil {
		checks = s.checks(ctx)
	}
	if s.facts != nil {
		st := s.facts(ctx)
		checks = append(checks, st.Facts...)
		out.Alert = st.Alert
	}
	for _, c := range checks {
		// Readiness gives the model a while before it says degraded; the
		// strip agrees with the banner at once.
		if c.Name == "model" && c.OK && out.Alert != "" {
			c.OK, c.Detail = false, "calls failing (see above); readiness says degraded after a minute of it"
		}
		out.Items = append(out.Items, inspector.StatusItem{Name: c.Name, OK: c.OK, Detail: c.Detail})
	}
	return out
}
