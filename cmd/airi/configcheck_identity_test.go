package main

import (
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airi-go/airi/adapters/satori/satoritest"
	"github.com/airi-go/airi/adapters/telegram/telegramtest"
)

// wrongToken is well formed, so only the Bot API can refuse it.
const wrongToken = "987654321:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw9"

// closedURL is an address nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestConfigCheckAsksThePlatformsWhoTheBotIs(t *testing.T) {
	tg := telegramtest.Start(telegramtest.Options{})
	t.Cleanup(tg.Close)
	sa := satoritest.NewServer(satoritest.Options{Token: "satori-secret"})
	t.Cleanup(sa.Close)
	dead := closedURL(t)

	tests := []struct {
		name    string
		env     map[string]string
		code    int
		check   string
		ok      bool
		mention string
	}{
		{"telegram token accepted", map[string]string{"TELEGRAM_BOT_TOKEN": telegramtest.DefaultToken, "TELEGRAM_API_BASE_URL": tg.URL()},
			exitOK, "telegram", true, "@" + tg.Bot().Username},
		{"telegram token refused", map[string]string{"TELEGRAM_BOT_TOKEN": wrongToken, "TELEGRAM_API_BASE_URL": tg.URL()},
			exitFailure, "telegram", false, "TELEGRAM_BOT_TOKEN"},
		{"telegram unreachable", map[string]string{"TELEGRAM_BOT_TOKEN": telegramtest.DefaultToken, "TELEGRAM_API_BASE_URL": "http://" + dead},
			exitFailure, "telegram", false, "TELEGRAM_BOT_TOKEN"},
		{"satori token accepted", map[string]string{"SATORI_WS_URL": sa.WSURL(), "SATORI_API_BASE_URL": sa.APIBaseURL(), "SATORI_TOKEN": "satori-secret"},
			exitOK, "satori", true, "logged in"},
		{"satori token refused", map[string]string{"SATORI_WS_URL": sa.WSURL(), "SATORI_API_BASE_URL": sa.APIBaseURL(), "SATORI_TOKEN": "wrong"},
			exitFailure, "satori", false, "SATORI_TOKEN"},
		{"satori unreachable", map[string]string{"SATORI_WS_URL": "ws://" + dead + "/satori/v1/events", "SATORI_API_BASE_URL": "http://" + dead + "/satori/v1"},
			exitFailure, "satori", false, "SATORI_WS_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"DB_PATH": filepath.Join(t.TempDir(), "airi.db"), "LLM_API_BASE_URL": "http://" + dead + "/v1", "LLM_MODEL": "m"}
			for k, v := range tt.env {
				env[k] = v
			}
			// --no-model skips the model call, not the platforms.
			code, stdout, stderr := runCommand(t, env, "config", "check", "--no-model", "--json")
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tt.code, stdout, stderr)
			}
			var got struct {
				Checks []check `json:"checks"`
			}
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatalf("%v: %s", err, stdout)
			}
			var found *check
			for i := range got.Checks {
				if got.Checks[i].Name == tt.check {
					found = &got.Checks[i]
				}
			}
			if found == nil {
				t.Fatalf("no %s check in %+v", tt.check, got.Checks)
			}
			if found.OK != tt.ok || !strings.Contains(found.Detail, tt.mention) {
				t.Errorf("%s check = %+v, want ok=%v naming %q", tt.check, *found, tt.ok, tt.mention)
			}
			if strings.Contains(stdout, wrongToken) || strings.Contains(stdout, telegramtest.DefaultToken) {
				t.Errorf("the token was printed: %s", stdout)
			}
		})
	}
}

func TestConfigCheckNamesTheRefusedTokenInText(t *testing.T) {
	tg := telegramtest.Start(telegramtest.Options{})
	t.Cleanup(tg.Close)
	code, stdout, _ := runCommand(t, map[string]string{"DB_PATH": filepath.Join(t.TempDir(), "airi.db"),
		"TELEGRAM_BOT_TOKEN": wrongToken, "TELEGRAM_API_BASE_URL": tg.URL()}, "config", "check", "--no-model")
	if code != exitFailure {
		t.Fatalf("exit %d\n%s", code, stdout)
	}
	var line string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.Contains(l, "telegram") && strings.HasPrefix(l, "FAIL") {
			line = l
		}
	}
	if !strings.Contains(line, "TELEGRAM_BOT_TOKEN") {
		t.Errorf("no FAIL line naming the token:\n%s", stdout)
	}
}
