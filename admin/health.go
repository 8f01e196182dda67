package admin

import (
	"encoding/json"
	"net/http"
)

// Check is one check of /readyz.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
}

// Readiness is the body of /readyz.
type Readiness struct {
	// Status is "ok"; "degraded" when only the model fails (the bot
	// runs, takes messages in and keeps them, but cannot answer); or
	// "failing".
	Status string  `json:"status"`
	Checks []Check `json:"checks"`
}

// readyz answers the readiness checks: 200 when all pass, 503 otherwise.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	var checks []Check
	if s.checks != nil {
		checks = s.checks(r.Context())
	}
	body := Readiness{Status: "ok", Checks: checks}
	for _, c := range checks {
		switch {
		case c.OK:
		case c.Name == "model" && body.Status == "ok":
			body.Status = "degraded"
		default:
			body.Status = "failing"
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if body.Status != "ok" {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(body)
}
