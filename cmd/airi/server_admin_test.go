package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
)

func TestRunRefusesAShortAdminTokenBeyondLoopback(t *testing.T) {
	tests := []struct {
		name, token, want string
	}{
		{"no token", "", "set AIRI_ADMIN_TOKEN"},
		{"short token", "change-me", "at least 16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "airi.db")
			code, _, stderr := runCommand(t, map[string]string{
				"LLM_API_BASE_URL": "http://127.0.0.1:1/v1", "LLM_MODEL": "m", "DB_PATH": db,
				"TELEGRAM_BOT_TOKEN": telegramtest.DefaultToken, "AIRI_ADMIN_ADDR": "0.0.0.0:0", "AIRI_ADMIN_TOKEN": tt.token,
			}, "run")
			if code != exitUsage || !strings.Contains(stderr, tt.want) || strings.Contains(stderr, "change-me") {
				t.Fatalf("exit %d, want %d naming %q: %s", code, exitUsage, tt.want, stderr)
			}
		})
	}
}
