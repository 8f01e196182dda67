package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airi-go/airi/tools"
)

func TestToolsCommand(t *testing.T) {
	index := os.Getenv("AIRI_TEST_MCP_EVERYTHING")
	if index == "" {
		t.Skip("AIRI_TEST_MCP_EVERYTHING is unset: install @modelcontextprotocol/server-everything and point it at dist/index.js")
	}
	t.Chdir(t.TempDir())
	file := filepath.Join(t.TempDir(), "airi.yaml")
	body := "mcp_servers:\n  everything:\n    command: [node, " + index + ", stdio]\n  broken:\n    command: [" + filepath.Join(t.TempDir(), "missing") + "]\n" +
		"tools:\n  allow_users: [telegram:501]\n  per_tool:\n    everything.echo: {groups: allow}\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }, environ: func() []string { return nil }}
	code := a.run(context.Background(), []string{"tools", "--json", "--config", file})
	if code != exitFailure {
		t.Errorf("exit %d, want %d: a server could not be listed\n%s", code, exitFailure, errOut.String())
	}
	var reps []tools.ServerReport
	if err := json.Unmarshal(out.Bytes(), &reps); err != nil {
		t.Fatalf("output is not the JSON list: %v\n%s", err, out.String())
	}
	if len(reps) != 2 || reps[0].Name != "everything" || reps[1].Error == "" {
		t.Fatalf("reports = %+v", reps)
	}
	who := map[string]string{}
	for _, tr := range reps[0].Tools {
		who[tr.Name] = tr.Who
	}
	if who["everything.echo"] != "everyone" || who["everything.get-sum"] != "direct chats; in groups telegram:501" {
		t.Errorf("who may use the tools: %v", who)
	}
}
