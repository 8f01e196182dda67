package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/airi-go/airi/scheduler/attention"
)

// TestConfigForumTopicOverrides keys overrides by a forum topic's channel
// id: the topic takes them, its group and its other topics keep theirs.
func TestConfigForumTopicOverrides(t *testing.T) {
	file := filepath.Join(t.TempDir(), "airi.yaml")
	body := "airi_group_mode: ambient\nchannels:\n  \"-1001234567890/42\":\n    airi_group_mode: addressed\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := loadConfig(file, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]attention.Mode{
		"-1001234567890/42": attention.ModeAddressed,
		"-1001234567890":    attention.ModeAmbient,
		"-1001234567890/7":  attention.ModeAmbient,
	} {
		if got := c.Attention.For(id).Mode; got != want {
			t.Errorf("mode of %s = %s, want %s", id, got, want)
		}
	}
}
