package transport

import (
	"net/http"
	"testing"
)

func TestNewKeepsIdleConnections(t *testing.T) {
	a, b := New(), New()
	if a == b || a == http.DefaultTransport {
		t.Fatal("New shares a transport; want one of its own each time")
	}
	if a.MaxIdleConnsPerHost != MaxIdlePerHost {
		t.Errorf("MaxIdleConnsPerHost = %d, want %d", a.MaxIdleConnsPerHost, MaxIdlePerHost)
	}
	if a.Proxy == nil || a.DialContext == nil {
		t.Error("the clone lost net/http's default proxy or dialer")
	}
}
