package tools

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

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

// DecodeYAML reads what a YAML configuration file says about tools, the
// value n of its key mcp_servers (the servers, added to c.Servers) or
// tools (who may use their tools, c.Policy). Every problem is reported,
// naming where it is.
func (c *Config) DecodeYAML(key string, n *yaml.Node) error {
	if strings.EqualFold(key, "mcp_servers") {
		return c.readServers(n)
	}
	return c.readPolicy(n)
}

func (c *Config) readServers(n *yaml.Node) error {
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
		c.Servers = append(c.Servers, Server{Name: name, Command: s.Command, Env: s.Env, URL: s.URL, Headers: s.Headers})
	}
	return errors.Join(errs...)
}

func (c *Config) readPolicy(n *yaml.Node) error {
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
	c.Policy = Policy{Rule: Rule(r)}
	if per == nil || per.ShortTag() == "!!null" {
		return nil
	}
	if per.Kind != yaml.MappingNode {
		return errors.New("tools.per_tool: want a map of server.tool names to {groups, allow_users}")
	}
	var errs []error
	c.Policy.PerTool = map[string]Rule{}
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
		c.Policy.PerTool[name] = Rule(r)
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
