package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/scheduler/attention"
)

func TestAttentionConfig(t *testing.T) {
	file := filepath.Join(t.TempDir(), "airi.yaml")
	yaml := `airi_group_mode: ambient
airi_aliases: "Bot, Helper "
airi_budget_tokens_day: 100000
channels:
  "-100":
    airi_group_mode: addressed
    airi_aliases: [juni]
    airi_channel_budget_tokens_day: 5000
  "-200":
    airi_ambient_every: 50
`
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := loadConfig(file, envOf(map[string]string{"AIRI_SENDER_RATE": "5/10s", "AIRI_BUDGET_TZ": "Europe/Berlin", "AIRI_CHANNEL_BUDGET_TOKENS_DAY": "20000"}))
	if err != nil {
		t.Fatal(err)
	}
	def := c.Attention.Default
	if def.Mode != attention.ModeAmbient || strings.Join(def.Aliases, "|") != "bot|helper" || def.SenderRate != (attention.Rate{N: 5, Per: 10 * time.Second}) ||
		def.AmbientEvery != 30 || def.AmbientMinGap != 10*time.Minute || !def.IgnoreBots || def.BotReplies != 3 {
		t.Errorf("default settings = %+v", def)
	}
	if s := c.Attention.For("-100"); s.Mode != attention.ModeAddressed || strings.Join(s.Aliases, "|") != "juni" || s.SenderRate.N != 5 {
		t.Errorf("channel -100 = %+v, want addressed with its own aliases over the defaults", s)
	}
	if s := c.Attention.For("-200"); s.AmbientEvery != 50 || s.Mode != attention.ModeAmbient {
		t.Errorf("channel -200 = %+v", s)
	}
	if c.BudgetDay != 100000 || c.ChannelBudgetDay != 20000 || c.ChannelBudgets["-100"] != 5000 || c.BudgetTZ.String() != "Europe/Berlin" {
		t.Errorf("budgets = %d, %d, %v, %v", c.BudgetDay, c.ChannelBudgetDay, c.ChannelBudgets, c.BudgetTZ)
	}
}

func TestAttentionConfigErrors(t *testing.T) {
	_, err := loadConfig("", envOf(map[string]string{"AIRI_SENDER_RATE": "often", "AIRI_BUDGET_TZ": "Mars/Olympus", "AIRI_GROUP_MODE": "loud"}))
	for _, want := range []string{"AIRI_SENDER_RATE", "AIRI_BUDGET_TZ", "AIRI_GROUP_MODE"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %s: %v", want, err)
		}
	}
	for _, tt := range []struct{ name, yaml, want string }{
		{"unknown key", "channels:\n  \"-100\":\n    llm_model: other\n", `"-100": unknown or not per-channel key "llm_model"`},
		{"bad value", "channels:\n  \"-100\":\n    airi_group_mode: loud\n", `"-100": AIRI_GROUP_MODE="loud"`},
		{"not a map", "channels: [1, 2]\n", "channels: want a map"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "airi.yaml")
			if err := os.WriteFile(file, []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := loadConfig(file, envOf(nil)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want it to contain %s", err, tt.want)
			}
		})
	}
}
