package main

import (
	"strings"
	"testing"
	"time"
)

func TestConfigReplicaSettings(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string // empty: valid
		ttl     time.Duration
	}{
		{"defaults", nil, "", 15 * time.Second},
		{"postgres and a ttl", map[string]string{"DATABASE_URL": "postgres://airi@db:5432/airi", "AIRI_LEASE_TTL": "5s"}, "", 5 * time.Second},
		{"not a postgres url", map[string]string{"DATABASE_URL": "mysql://airi:hunter2@db/airi"}, "DATABASE_URL", 0},
		{"ttl too short", map[string]string{"AIRI_LEASE_TTL": "200ms"}, "AIRI_LEASE_TTL", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := loadConfig("", envOf(tt.env))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if c.LeaseTTL != tt.ttl || c.DatabaseURL != tt.env["DATABASE_URL"] {
					t.Errorf("LeaseTTL = %v, DatabaseURL = %q", c.LeaseTTL, c.DatabaseURL)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want one naming %s", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the error shows the password: %v", err)
			}
		})
	}
}
