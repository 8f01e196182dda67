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
	Status string  `json:"status"` // "ok" or "failing"
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
		if !c.OK {
			body.Status = "failing"
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if body.Status != "ok" {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(body)
}
