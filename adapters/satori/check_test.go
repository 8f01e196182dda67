package satori_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/adapters/satori"
	"github.com/airi-go/airi/adapters/satori/satoritest"
)

// TestCheck logs in to a server that takes the token, one that refuses
// it and one that is not there.
func TestCheck(t *testing.T) {
	srv := satoritest.NewServer(satoritest.Options{Token: "right"})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, tt := range []struct {
		name, url, token, want string
	}{
		{"the token is taken", srv.WSURL(), "right", ""},
		{"the token is refused", srv.WSURL(), "wrong", "SATORI_TOKEN"},
		{"no server", "ws://127.0.0.1:1/v1/events", "right", "connect"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(srv)
			cfg.WSURL, cfg.Token = tt.url, tt.token
			a, err := satori.New(cfg, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = a.Check(ctx)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Check: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Check = %v; want an error naming %q", err, tt.want)
			}
		})
	}
}
