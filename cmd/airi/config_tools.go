package main

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/airi-go/airi/tools"
)

// toolsFile is what the YAML file says about tools: the MCP servers under
// mcp_servers: and who may use their tools under tools:. Neither is a
// flat setting, so they are read here rather than through the settings
// table.
type toolsFile struct {
	servers []tools.Server
	policy  tools.Policy
}

type yamlServer struct {
	Command []string          `yaml:"command"`
	Env     map[string]string `yaml:"env"`
	URL     string            `yaml:"url"`
	Headers map[string]string `yaml:"headers"`
}

type yamlRule struct {
	Groups     string   `yaml:"groups"`
	AllowUsers []string `yaml:"allow_users"`
}

// read takes the value of the key mcp_servers or tools.
func (f *toolsFile) read(key string, n *yaml.Node) error {
	if strings.EqualFold(key, "mcp_servers") {
		return f.readServers(n)
	}
	return f.readPolicy(n)
}

func (f *toolsFile) readServers(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return errors.New("mcp_servers: want a map of server names to {command: [argv...]} or {url: ...}")
	}
	var errs []error
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, v := n.Content[i].Value, n.Content[i+1]
		if err := knownKeys(v, "mcp_servers."+name, "command", "env", "url", "headers"); err != nil {
			errs = append(errs, err)
			continue
		}
		var s yamlServer
		if err := v.Decode(&s); err != nil {
			errs = append(errs, fmt.Errorf("mcp_servers.%s: %w", name, err))
			continue
		}
		f.servers = append(f.servers, tools.Server{Name: name, Command: s.Command, Env: s.Env, URL: s.URL, Headers: s.Headers})
	}
	return errors.Join(errs...)
}

func (f *toolsFile) readPolicy(n *yaml.Node) error {
	if err := knownKeys(n, "tools", "groups", "allow_users", "per_tool"); err != nil {
		return err
	}
	var r yamlRule
	var per *yaml.Node
	top := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "per_tool" {
			per = n.Content[i+1]
			continue
		}
		top.Content = append(top.Content, n.Content[i], n.Content[i+1])
	}
	if err := top.Decode(&r); err != nil {
		return fmt.Errorf("tools: %w", err)
	}
	f.policy = tools.Policy{Rule: tools.Rule{Groups: r.Groups, AllowUsers: r.AllowUsers}}
	if per == nil || per.ShortTag() == "!!null" {
		return nil
	}
	if per.Kind != yaml.MappingNode {
		return errors.New("tools.per_tool: want a map of server.tool names to {groups, allow_users}")
	}
	var errs []error
	f.policy.PerTool = map[string]tools.Rule{}
	for i := 0; i+1 < len(per.Content); i += 2 {
		name, v := per.Content[i].Value, per.Content[i+1]
		if err := knownKeys(v, "tools.per_tool."+name, "groups", "allow_users"); err != nil {
			errs = append(errs, err)
			continue
		}
		var r yamlRule
		if err := v.Decode(&r); err != nil {
			errs = append(errs, fmt.Errorf("tools.per_tool.%s: %w", name, err))
			continue
		}
		f.policy.PerTool[name] = tools.Rule{Groups: r.Groups, AllowUsers: r.AllowUsers}
	}
	return errors.Join(errs...)
}

// knownKeys refuses a map with a key not in keys, naming where it is.
func knownKeys(n *yaml.Node, where string, keys ...string) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: want a map with %s", where, strings.Join(keys, ", "))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		found := false
		for _, want := range keys {
			found = found || k == want
		}
		if !found {
			return fmt.Errorf("%s: unknown key %q (known: %s)", where, k, strings.Join(keys, ", "))
		}
	}
	return nil
}
