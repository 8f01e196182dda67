package main

import (
	"strings"
	"testing"
)

func TestClosest(t *testing.T) {
	names := []string{"AIRI_HISTORY", "AIRI_HISTORY_X", "LLM_MODEL", "status", "channels", "channel", "chat"}
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"AIRI_HISTROY", "AIRI_HISTORY", true},
		{"airi_history", "AIRI_HISTORY", true},
		{"LLM_MODLE", "LLM_MODEL", true},
		{"stauts", "status", true},
		{"chanels", "channels", true},
		{"chta", "chat", true},
		{"xyzzy", "", false},
		{"AIRI_SOMETHING_ELSE", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := closest(tt.in, names)
			if ok != tt.ok || (ok && got != tt.want) {
				t.Errorf("closest(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"ab", "ba", 1}, {"HISTROY", "HISTORY", 1}} {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestTyposSuggest(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"command", []string{"stauts"}, `did you mean status?`},
		{"help of a command", []string{"help", "chta"}, `did you mean chat?`},
		{"subcommand", []string{"db", "stast"}, `did you mean stats?`},
		{"flag", []string{"status", "--jsn"}, `did you mean --json?`},
		{"flag of a subcommand", []string{"channel", "pause", "--fro", "1h", "x"}, `did you mean --for?`},
		{"flag of a memory command", []string{"memory", "list", "--chanel", "x"}, `did you mean --channel?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runHelp(t, tt.args)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout should be empty:\n%s", stdout)
			}
		})
	}
}
