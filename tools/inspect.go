package tools

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServerReport is one server as `airi tools` shows it: how it is reached,
// its tools and who may use each, or why it could not be listed.
type ServerReport struct {
	Name      string       `json:"name"`
	Transport string       `json:"transport"`
	Error     string       `json:"error,omitempty"`
	Tools     []ToolReport `json:"tools"`
}

// ToolReport is one tool of a ServerReport.
type ToolReport struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Who         string `json:"who"`
}

// Inspect connects to each configured server once (not supervised), lists
// its tools and closes it, in the order of cfg.Servers. A server that
// fails is reported with its error; Inspect itself fails only when ctx
// ends.
func Inspect(ctx context.Context, cfg Config) ([]ServerReport, error) {
	out := make([]ServerReport, 0, len(cfg.Servers))
	for _, s := range cfg.Servers {
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("inspect tool servers: %w", err)
		}
		rep := ServerReport{Name: s.Name, Transport: "stdio", Tools: []ToolReport{}}
		if s.URL != "" {
			rep.Transport = "http"
		}
		list, err := listOnce(ctx, s, cfg.timeout())
		if err != nil {
			rep.Error = err.Error()
		}
		for _, t := range list {
			rep.Tools = append(rep.Tools, ToolReport{Name: t.Name, Description: oneLine(t.Description), Who: cfg.Policy.Who(t.Name)})
		}
		out = append(out, rep)
	}
	return out, nil
}

func (c Config) timeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

func listOnce(ctx context.Context, s Server, timeout time.Duration) ([]Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "airi", Version: "1"}, nil)
	cs, err := client.Connect(ctx, transport(s), nil)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	var out []Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return out, fmt.Errorf("list tools: %w", err)
		}
		tool, err := newTool(s.Name, t)
		if err != nil {
			continue
		}
		out = append(out, tool)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
