package admin

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"
)

// TestAdminProfilesNeedTheToken serves the profiles only to a request
// with the admin token.
func TestAdminProfilesNeedTheToken(t *testing.T) {
	s := &Server{token: "tok", metrics: NewMetrics(func() float64 { return 0 }), log: zaptest.NewLogger(t)}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	tests := []struct {
		name, path, token string
		want              int
		body              string
	}{
		{"index without token", "/debug/pprof/", "", http.StatusUnauthorized, ""},
		{"heap without token", "/debug/pprof/heap", "", http.StatusUnauthorized, ""},
		{"index", "/debug/pprof/", "tok", http.StatusOK, "goroutine"},
		{"heap", "/debug/pprof/heap?debug=1", "tok", http.StatusOK, "heap profile"},
		{"wrong token", "/debug/pprof/goroutine", "nope", http.StatusUnauthorized, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, srv.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.token != "" {
				req.Header.Set("Authorization", "Bearer "+tt.token)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var sb strings.Builder
			if _, err := io.Copy(&sb, resp.Body); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.want || !strings.Contains(sb.String(), tt.body) {
				t.Fatalf("status %d, body %.200q; want %d containing %q", resp.StatusCode, sb.String(), tt.want, tt.body)
			}
		})
	}
}
