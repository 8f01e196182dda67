package tools

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// DefaultTimeout bounds one tool call when Config.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// Server is one MCP server: a command run over stdio, or the URL of a
// streamable HTTP endpoint.
type Server struct {
	// Name prefixes the server's tools: "<name>.<tool>".
	Name string
	// Command is the argv of a stdio server; Env adds to its environment.
	Command []string
	Env     map[string]string
	// URL is a streamable HTTP endpoint; Headers go with every request
	// (an Authorization header, for example).
	URL     string
	Headers map[string]string
}

// Rule says who may use tools: in groups everyone (Groups "allow") or
// nobody but AllowUsers (Groups "deny"); in direct chats everyone unless
// a rule names AllowUsers only.
type Rule struct {
	// Groups is "deny" or "allow"; "" inherits (deny at the top).
	Groups string
	// AllowUsers are platform-qualified sender ids ("telegram:501") who
	// may use the tools anywhere.
	AllowUsers []string
}

// Policy is the top rule and the rules of single tools, by their full
// name ("everything.echo"); a tool's rule replaces the fields it sets.
type Policy struct {
	Rule
	PerTool map[string]Rule
}

// Config is what the runtime needs to run tools.
type Config struct {
	Servers []Server
	Policy  Policy
	// Timeout bounds each call [DefaultTimeout].
	Timeout time.Duration
}

// Enabled reports whether any server is configured: tools are off
// otherwise.
func (c Config) Enabled() bool { return len(c.Servers) > 0 }

// Validate names the first field that is wrong.
func (c Config) Validate() error {
	seen := map[string]bool{}
	for _, s := range c.Servers {
		switch {
		case s.Name == "" || strings.ContainsAny(s.Name, ". \t"):
			return fmt.Errorf("mcp_servers: name %q must be non-empty, without dots or spaces", s.Name)
		case seen[s.Name]:
			return fmt.Errorf("mcp_servers.%s: named twice", s.Name)
		case len(s.Command) > 0 && s.URL != "":
			return fmt.Errorf("mcp_servers.%s: set command or url, not both", s.Name)
		case len(s.Command) == 0 && s.URL == "":
			return fmt.Errorf("mcp_servers.%s: needs command (argv list) or url", s.Name)
		case len(s.Command) > 0 && s.Command[0] == "":
			return fmt.Errorf("mcp_servers.%s.command: empty program name", s.Name)
		case s.URL != "" && !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://"):
			return fmt.Errorf("mcp_servers.%s.url: %q is not an http(s) URL", s.Name, s.URL)
		}
		seen[s.Name] = true
	}
	check := func(field string, r Rule) error {
		if r.Groups != "" && r.Groups != "deny" && r.Groups != "allow" {
			return fmt.Errorf("%s.groups: %q is neither deny nor allow", field, r.Groups)
		}
		for _, u := range r.AllowUsers {
			if i := strings.IndexByte(u, ':'); i <= 0 || i == len(u)-1 {
				return fmt.Errorf("%s.allow_users: %q is not platform:id (for example telegram:501)", field, u)
			}
		}
		return nil
	}
	if err := check("tools", c.Policy.Rule); err != nil {
		return err
	}
	names := make([]string, 0, len(c.Policy.PerTool))
	for n := range c.Policy.PerTool {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !strings.Contains(n, ".") {
			return fmt.Errorf("tools.per_tool.%s: name a tool as server.tool", n)
		}
		if err := check("tools.per_tool."+n, c.Policy.PerTool[n]); err != nil {
			return err
		}
	}
	if c.Timeout < 0 {
		return errors.New("AIRI_TOOL_TIMEOUT: must not be negative")
	}
	return nil
}

// rule returns the rule that applies to the tool named full.
func (p Policy) rule(full string) Rule {
	r := p.Rule
	if t, ok := p.PerTool[full]; ok {
		if t.Groups != "" {
			r.Groups = t.Groups
		}
		if t.AllowUsers != nil {
			r.AllowUsers = t.AllowUsers
		}
	}
	if r.Groups == "" {
		r.Groups = "deny"
	}
	return r
}

// Allows reports whether the tool named full may run for senders (the
// people whose messages the wake answers) in a group or a direct chat,
// and if not, why. With several senders the most restrictive wins: every
// one must be allowed.
func (p Policy) Allows(full string, senders []string, group bool) (bool, string) {
	r := p.rule(full)
	if !group || r.Groups == "allow" {
		return true, ""
	}
	if len(senders) == 0 {
		return false, "tools are denied in groups, and no sender of this wake is known"
	}
	for _, s := range senders {
		if !contains(r.AllowUsers, s) {
			return false, fmt.Sprintf("tools are denied in groups, and sender %s is not in allow_users", s)
		}
	}
	return true, ""
}

// Who describes who may use the tool named full, for `airi tools`.
func (p Policy) Who(full string) string {
	r := p.rule(full)
	if r.Groups == "allow" {
		return "everyone"
	}
	if len(r.AllowUsers) == 0 {
		return "direct chats"
	}
	return "direct chats; in groups " + strings.Join(r.AllowUsers, ", ")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
