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

func TestConfigWebhook(t *testing.T) {
	const token = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0"
	tests := []struct {
		name    string
		env     map[string]string
		wantErr []string // empty: valid
	}{
		{"long polling", map[string]string{"TELEGRAM_BOT_TOKEN": token}, nil},
		{"https webhook", map[string]string{"TELEGRAM_BOT_TOKEN": token, "TELEGRAM_WEBHOOK_URL": "https://bot.example.com/telegram",
			"TELEGRAM_WEBHOOK_SECRET": "Abc_123-xyz", "AIRI_WEBHOOK_ADDR": "0.0.0.0:8080"}, nil},
		{"http on loopback", map[string]string{"TELEGRAM_BOT_TOKEN": token, "TELEGRAM_WEBHOOK_URL": "http://127.0.0.1:9000/tg",
			"TELEGRAM_WEBHOOK_SECRET": "s"}, nil},
		{"http elsewhere", map[string]string{"TELEGRAM_BOT_TOKEN": token, "TELEGRAM_WEBHOOK_URL": "http://bot.example.com/tg",
			"TELEGRAM_WEBHOOK_SECRET": "s"}, []string{"TELEGRAM_WEBHOOK_URL", "https"}},
		{"not a url", map[string]string{"TELEGRAM_BOT_TOKEN": token, "TELEGRAM_WEBHOOK_URL": "bot.example.com",
			"TELEGRAM_WEBHOOK_SECRET": "s"}, []string{"TELEGRAM_WEBHOOK_URL"}},
		{"no secret", map[string]string{"TELEGRAM_BOT_TOKEN": token, "TELEGRAM_WEBHOOK_URL": "https://bot.example.com/tg"},
			[]string{"TELEGRAM_WEBHOOK_SECRET is not set"}},
		{"secret Telegram refuses", map[string]string{"TELEGRAM_BOT_TOKEN": token, "TELEGRAM_WEBHOOK_URL": "https://bot.example.com/tg",
			"TELEGRAM_WEBHOOK_SECRET": "hunter2 with spaces"}, []string{"TELEGRAM_WEBHOOK_SECRET: want"}},
		{"secret without url", map[string]string{"TELEGRAM_BOT_TOKEN": token, "TELEGRAM_WEBHOOK_SECRET": "hunter2"},
			[]string{"without TELEGRAM_WEBHOOK_URL"}},
		{"url without token", map[string]string{"TELEGRAM_WEBHOOK_URL": "https://bot.example.com/tg", "TELEGRAM_WEBHOOK_SECRET": "s"},
			[]string{"without TELEGRAM_BOT_TOKEN"}},
		{"bad listen address", map[string]string{"TELEGRAM_BOT_TOKEN": token, "TELEGRAM_WEBHOOK_URL": "https://bot.example.com/tg",
			"TELEGRAM_WEBHOOK_SECRET": "s", "AIRI_WEBHOOK_ADDR": "8443"}, []string{"AIRI_WEBHOOK_ADDR"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := loadConfig("", envOf(tt.env))
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if c.TelegramWebhookURL != tt.env["TELEGRAM_WEBHOOK_URL"] || c.WebhookAddr == "" {
					t.Errorf("webhook %q on %q", c.TelegramWebhookURL, c.WebhookAddr)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want one naming %v", tt.wantErr)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the error shows the secret: %v", err)
			}
		})
	}
}
