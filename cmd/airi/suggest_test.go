package main

import (
	"strings"
	"testing"
)

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
