package tools

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string // "" for valid
	}{
		{"stdio", Config{Servers: []Server{{Name: "fs", Command: []string{"npx", "srv"}}}}, ""},
		{"http", Config{Servers: []Server{{Name: "kb", URL: "https://kb.example/mcp", Headers: map[string]string{"Authorization": "Bearer x"}}}}, ""},
		{"dotted name", Config{Servers: []Server{{Name: "a.b", Command: []string{"x"}}}}, "without dots"},
		{"both", Config{Servers: []Server{{Name: "a", Command: []string{"x"}, URL: "http://x"}}}, "not both"},
		{"neither", Config{Servers: []Server{{Name: "a"}}}, "needs command"},
		{"twice", Config{Servers: []Server{{Name: "a", URL: "http://x"}, {Name: "a", URL: "http://y"}}}, "named twice"},
		{"bad url", Config{Servers: []Server{{Name: "a", URL: "ftp://x"}}}, "not an http(s) URL"},
		{"bad groups", Config{Policy: Policy{Rule: Rule{Groups: "maybe"}}}, "tools.groups"},
		{"bare user id", Config{Policy: Policy{Rule: Rule{AllowUsers: []string{"501"}}}}, "not platform:id"},
		{"per tool without server", Config{Policy: Policy{PerTool: map[string]Rule{"echo": {}}}}, "server.tool"},
		{"per tool bad groups", Config{Policy: Policy{PerTool: map[string]Rule{"a.echo": {Groups: "open"}}}}, "tools.per_tool.a.echo.groups"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Validate() = %v, want an error with %q", err, tt.want)
			}
		})
	}
}

func TestAllows(t *testing.T) {
	p := Policy{
		Rule: Rule{AllowUsers: []string{"telegram:1"}},
		PerTool: map[string]Rule{
			"kb.search": {Groups: "allow"},
			"fs.write":  {AllowUsers: []string{}},
		},
	}
	tests := []struct {
		name    string
		tool    string
		senders []string
		group   bool
		want    bool
	}{
		{"direct chat", "fs.read", []string{"telegram:9"}, false, true},
		{"group, unlisted sender", "fs.read", []string{"telegram:9"}, true, false},
		{"group, listed sender", "fs.read", []string{"telegram:1"}, true, true},
		{"group, one unlisted among several", "fs.read", []string{"telegram:1", "telegram:9"}, true, false},
		{"group, no sender known", "fs.read", nil, true, false},
		{"group allowed for one tool", "kb.search", []string{"telegram:9"}, true, true},
		{"per tool list replaces the top one", "fs.write", []string{"telegram:1"}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := p.Allows(tt.tool, tt.senders, tt.group)
			if got != tt.want {
				t.Fatalf("Allows = %v (%s), want %v", got, why, tt.want)
			}
			if !got && why == "" {
				t.Fatal("a refusal without a reason")
			}
		})
	}
}
