package admin

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"
)

func TestLocalNext(t *testing.T) {
	tests := []struct {
		next, want string
	}{
		{"/channels/c1", "/channels/c1"},
		{"/search?q=hello+world", "/search?q=hello+world"},
		{"/channels/c1?outcome=sent", "/channels/c1?outcome=sent"},
		{"", "/"},
		{"https://evil.example/", "/"},
		{"//evil.example/", "/"},
		{"/\\evil.example/", "/"},
		{"/%09/127.0.0.1:1/x", "/"},
		{"/\t/127.0.0.1:1/x", "/"},
		{"/%2F/evil.example", "/"},
		{"/%5Cevil.example", "/"},
		{"/%0d%0aLocation:%20x", "/"},
		{"/%zz", "/"},
		{"javascript:alert(1)", "/"},
	}
	for _, tt := range tests {
		t.Run(tt.next, func(t *testing.T) {
			if got := localNext(tt.next); got != tt.want {
				t.Errorf("localNext(%q) = %q, want %q", tt.next, got, tt.want)
			}
		})
	}
}

// TestLoginNeverLeavesTheServer follows the sign-in's redirects from the
// outside, as a browser would.
func TestLoginNeverLeavesTheServer(t *testing.T) {
	st, _ := seedAdminStore(t)
	base := startAdmin(t, &Server{store: st, metrics: NewMetrics(func() float64 { return 0 }), log: zaptest.NewLogger(t)})
	for _, next := range []string{"/%09/127.0.0.1:1/x", "//127.0.0.1:1/x", "/%5C127.0.0.1:1/x", "http://127.0.0.1:1/x"} {
		t.Run(next, func(t *testing.T) {
			resp, body := (adminReq{path: "/login?next=" + next}).do(t, base)
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			loc, err := url.Parse(resp.Header.Get("Location"))
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Request.URL.ResolveReference(loc); got.Host != resp.Request.URL.Host || got.Path != "/" {
				t.Errorf("redirected to %s", got)
			}
		})
	}
}

func TestNoTokenAnswersOnlyLoopbackHosts(t *testing.T) {
	st, _ := seedAdminStore(t)
	open := startAdmin(t, &Server{store: st, metrics: NewMetrics(func() float64 { return 0 }), log: zaptest.NewLogger(t)})
	guarded := startAdmin(t, &Server{token: "0123456789abcdef", store: st, metrics: NewMetrics(func() float64 { return 0 }), log: zaptest.NewLogger(t)})
	tests := []struct {
		name, base, host string
		code             int
	}{
		{"loopback address", open, "", http.StatusOK},
		{"localhost", open, "localhost:7070", http.StatusOK},
		{"localhost without a port", open, "localhost", http.StatusOK},
		{"ipv6 loopback", open, "[::1]:7070", http.StatusOK},
		{"another name", open, "evil.example", http.StatusForbidden},
		{"another name with a port", open, "evil.example:7070", http.StatusForbidden},
		{"a name ending in localhost", open, "evillocalhost", http.StatusForbidden},
		{"another address", open, "10.0.0.1:7070", http.StatusForbidden},
		{"a token guards it instead", guarded, "evil.example", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest("GET", tt.base+"/channels/c1", nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			resp, err := noRedirects.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.code {
				t.Errorf("Host %q: status %d, want %d", tt.host, resp.StatusCode, tt.code)
			}
		})
	}
}

func TestShortTokenBeyondLoopbackNamesTheSetting(t *testing.T) {
	err := CheckAddr("0.0.0.0:7070", "change-me")
	if err == nil || !strings.Contains(err.Error(), "AIRI_ADMIN_TOKEN") || !strings.Contains(err.Error(), "16") {
		t.Errorf("CheckAddr with a 9-character token = %v", err)
	}
}
