package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestConfigFileTools(t *testing.T) {
	write := func(t *testing.T, body string) string {
		t.Helper()
		p := filepath.Join(t.TempDir(), "airi.yaml")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	env := func(string) string { return "" }
	t.Run("servers and rules", func(t *testing.T) {
		c, err := loadConfig(write(t, `
airi_tool_timeout: 5s
mcp_servers:
  everything:
    command: [node, index.js, stdio]
    env: {DEBUG: "1"}
  kb:
    url: https://kb.example/mcp
    headers: {Authorization: Bearer k}
tools:
  groups: deny
  allow_users: [telegram:501]
  per_tool:
    kb.search: {groups: allow}
`), env)
		if err != nil {
			t.Fatal(err)
		}
		tc := c.runtime().Tools
		if len(tc.Servers) != 2 || tc.Servers[0].Name != "everything" || tc.Servers[0].Command[2] != "stdio" ||
			tc.Servers[0].Env["DEBUG"] != "1" || tc.Servers[1].Headers["Authorization"] != "Bearer k" {
			t.Errorf("servers = %+v", tc.Servers)
		}
		if tc.Timeout != 5*time.Second || tc.Policy.Groups != "deny" || tc.Policy.AllowUsers[0] != "telegram:501" ||
			tc.Policy.PerTool["kb.search"].Groups != "allow" {
			t.Errorf("timeout %s, policy %+v", tc.Timeout, tc.Policy)
		}
	})
	t.Run("default timeout without servers", func(t *testing.T) {
		c, err := loadConfig("", env)
		if err != nil {
			t.Fatal(err)
		}
		if c.runtime().Tools.Enabled() || c.ToolTimeout != 30*time.Second {
			t.Errorf("tools %+v, timeout %s", c.Tools, c.ToolTimeout)
		}
	})
	for name, tt := range map[string]struct{ body, want string }{
		"unknown server key": {"mcp_servers:\n  a: {cmd: [x]}\n", `mcp_servers.a: unknown key "cmd"`},
		"no command nor url": {"mcp_servers:\n  a: {env: {X: y}}\n", "needs command"},
		"bad groups":         {"tools:\n  groups: sometimes\n", "tools.groups"},
		"bare user id":       {"tools:\n  allow_users: [501]\n", "platform:id"},
		"unknown tools key":  {"tools:\n  users: [telegram:1]\n", `tools: unknown key "users"`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := loadConfig(write(t, tt.body), env)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("loadConfig = %v, want an error with %q", err, tt.want)
			}
		})
	}
}
