package transport

import "testing"

func TestNewKeepsIdleConnections(t *testing.T) {
	if a := New(); a.MaxIdleConnsPerHost != MaxIdlePerHost {
		t.Errorf("MaxIdleConnsPerHost = %d, want %d", a.MaxIdleConnsPerHost, MaxIdlePerHost)
	}
}
