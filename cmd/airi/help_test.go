package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestHelpPrintsCommandFlags(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   []string // substrings of stdout
		noStdout bool
	}{
		{"help chat", []string{"help", "chat"}, exitOK, []string{"Usage: airi chat", "-channel", "-user"}, false},
		{"chat --help", []string{"chat", "--help"}, exitOK, []string{"Usage: airi chat", "-channel"}, false},
		{"run -h", []string{"run", "-h"}, exitOK, []string{"Usage: airi run", "-no-migrate"}, false},
		{"help prompt render", []string{"help", "prompt", "render"}, exitOK, []string{"Usage: airi prompt render", "-platform"}, false},
		{"help prompt", []string{"help", "prompt"}, exitOK, []string{"airi prompt render"}, false},
		{"help", []string{"help"}, exitOK, []string{"airi chat", "airi version"}, false},
		{"memory list --help", []string{"memory", "list", "--help"}, exitOK, []string{"airi memory list [--channel ID]", "--config FILE"}, false},
		{"bad flag", []string{"chat", "--bogus"}, exitUsage, nil, true},
		{"group without subcommand", []string{"prompt"}, exitUsage, nil, true},
		{"unknown", []string{"nope"}, exitUsage, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCommand(t, nil, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			if tt.noStdout && stdout != "" {
				t.Errorf("stdout should be empty on a usage error:\n%s", stdout)
			}
			if tt.code == exitUsage && stderr == "" {
				t.Error("a usage error printed nothing on stderr")
			}
		})
	}
}

func TestBuildInfo(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2025-05-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"},
	}}
	tests := []struct {
		name   string
		linked string
		read   func() (*debug.BuildInfo, bool)
		want   string
	}{
		{"module version and vcs", "dev", func() (*debug.BuildInfo, bool) { return info, true }, "airi v1.4.0 (0123456789ab+modified, built from a commit of 2025-05-01T10:00:00Z, go1.26.8)"},
		{"linked version wins", "v2.0.0", func() (*debug.BuildInfo, bool) { return info, true }, "airi v2.0.0 (0123456789ab+modified, built from a commit of 2025-05-01T10:00:00Z, go1.26.8)"},
		{"no build info", "dev", func() (*debug.BuildInfo, bool) { return nil, false }, "airi dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := readBuildInfo(tt.linked, tt.read).String(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestEveryCommandHasAHandler(t *testing.T) {
	a := &app{}
	h := a.handlers()
	for _, c := range commands {
		if h[c.name] == nil {
			t.Errorf("command %q has no handler", c.name)
		}
	}
	if len(h) != len(commands) {
		t.Errorf("%d handlers for %d commands", len(h), len(commands))
	}
}
