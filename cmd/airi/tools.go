package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/airi-go/airi/tools"
)

// cmdTools lists the configured MCP servers, their tools and who may use
// each, connecting to every server once. It exits 1 when a server could
// not be listed.
func (a *app) cmdTools(ctx context.Context, args []string) int {
	of, cfg, log, _, code, ok := a.opsSetup("tools", args, true, nil)
	if !ok {
		return code
	}
	defer func() { _ = log.Sync() }()
	reps, err := tools.Inspect(ctx, cfg.Tools)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi tools:", err)
		return exitFailure
	}
	code = exitOK
	for _, r := range reps {
		if r.Error != "" {
			code = exitFailure
		}
	}
	if of.json {
		_ = json.NewEncoder(a.stdout).Encode(reps)
		return code
	}
	if len(reps) == 0 {
		fmt.Fprintln(a.stdout, "no MCP servers configured (mcp_servers: in the --config file); tools are off")
		return exitOK
	}
	for _, r := range reps {
		fmt.Fprintf(a.stdout, "%s (%s)", r.Name, r.Transport)
		if r.Error != "" {
			fmt.Fprintf(a.stdout, ": %s", r.Error)
		}
		fmt.Fprintln(a.stdout)
		for _, t := range r.Tools {
			fmt.Fprintf(a.stdout, "  %s\t%s\t%s\n", t.Name, t.Who, t.Description)
		}
	}
	return code
}
