package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestParseCall(t *testing.T) {
	known := func(n string) bool { return n == "everything.echo" }
	tests := []struct {
		name     string
		raw      string
		wantOK   bool
		wantArgs string
		wantErr  bool
	}{
		{"flat", `{"action":"everything.echo","message":"m-123abc"}`, true, `{"message":"m-123abc"}`, false},
		{"fenced with reasoning", "```json\n{\"action\":\"everything.echo\",\"reasoning\":\"r\",\"message\":\"x\"}\n```", true, `{"message":"x"}`, false},
		{"nested arguments", `{"action":"everything.echo","arguments":{"message":"x"}}`, true, `{"message":"x"}`, false},
		{"function call", `{"name":"everything.echo","arguments":"{\"message\":\"x\"}"}`, true, `{"message":"x"}`, false},
		{"typed function call", `{"type":"function","function":{"name":"everything.echo","arguments":{"message":"x"}}}`, true, `{"message":"x"}`, false},
		{"bad arguments", `{"name":"everything.echo","arguments":"[1]"}`, true, "", true},
		{"built-in action", `{"action":"send_message","content":"hi"}`, false, "", false},
		{"unknown tool", `{"action":"other.echo"}`, false, "", false},
		{"not JSON", `everything.echo hi`, false, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, args, ok, err := ParseCall(tt.raw, known)
			if ok != tt.wantOK || (err != nil) != tt.wantErr {
				t.Fatalf("ParseCall = %q, %s, %v, %v; want ok %v, error %v", name, args, ok, err, tt.wantOK, tt.wantErr)
			}
			if tt.wantArgs != "" && string(args) != tt.wantArgs {
				t.Fatalf("args = %s, want %s", args, tt.wantArgs)
			}
		})
	}
}

func FuzzParseCall(f *testing.F) {
	f.Add(`{"action":"everything.echo","message":"m"}`)
	f.Add(`{"name":"everything.echo","arguments":"{}"}`)
	f.Add("```\n{\"action\":\"everything.echo\"}")
	f.Fuzz(func(t *testing.T, raw string) {
		name, args, ok, err := ParseCall(raw, func(n string) bool { return strings.HasPrefix(n, "everything.") })
		if ok && err == nil {
			var m map[string]any
			if json.Unmarshal(args, &m) != nil || !strings.HasPrefix(name, "everything.") {
				t.Fatalf("ParseCall(%q) = %q, %s: want a tool and an object", raw, name, args)
			}
		}
	})
}

func TestTextIsStable(t *testing.T) {
	a, err := newTool("kb", mcpTool("search", `{"type":"object","properties":{"q":{"type":"string","description":"what to look for"},"limit":{"type":"integer"}},"required":["q"]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := newTool("kb", mcpTool("get", `{"type":"object"}`))
	if err != nil {
		t.Fatal(err)
	}
	got := Text([]Tool{b, a})
	if got != Text([]Tool{b, a}) {
		t.Fatal("the same tools render differently")
	}
	for _, want := range []string{"- kb.get\n", "- kb.search {limit?, q}", "  q (string): what to look for"} {
		if !strings.Contains(got, want) {
			t.Errorf("Text lacks %q:\n%s", want, got)
		}
	}
	if Text(nil) != "" {
		t.Error("no tools must render nothing")
	}
	if err := a.Validate(json.RawMessage(`{"limit":2}`)); err == nil || !strings.Contains(err.Error(), "kb.search arguments do not match") {
		t.Errorf("Validate without q = %v", err)
	}
	if err := a.Validate(json.RawMessage(`{"q":"x"}`)); err != nil {
		t.Errorf("Validate = %v", err)
	}
}

func mcpTool(name, schema string) *mcp.Tool {
	return &mcp.Tool{Name: name, InputSchema: json.RawMessage(schema)}
}
