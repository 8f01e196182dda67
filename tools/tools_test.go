package tools

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap/zaptest"
)

// sdkServer is an MCP server of the official SDK served over streamable
// HTTP on 127.0.0.1. It keeps the headers of every request it got.
type sdkServer struct {
	mcp *mcp.Server
	url string

	mu      sync.Mutex
	headers []http.Header
}

func (s *sdkServer) seen() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.headers...)
}

type echoIn struct {
	Text string `json:"text" jsonschema:"what to echo"`
}

func echo(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
}

func newSDKServer(t *testing.T) *sdkServer {
	t.Helper()
	s := &sdkServer{mcp: mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)}
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "echo", Description: "Echoes the text."}, echo)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.headers = append(s.headers, r.Header.Clone())
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// startManager starts a manager of cfg, closed when the test ends.
func startManager(t *testing.T, cfg Config) *Manager {
	t.Helper()
	m := New(cfg, zaptest.NewLogger(t))
	m.Start(t.Context())
	t.Cleanup(func() {
		if err := m.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return m
}

// waitFor waits for changes of m until cond holds.
func waitFor(t *testing.T, m *Manager, what string, cond func() bool) {
	t.Helper()
	for {
		changed := m.Changed()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-t.Context().Done():
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// TestStreamableHTTPServer connects to a streamable HTTP server by url,
// lists and calls its tool, and checks that the configured headers went
// with every request.
func TestStreamableHTTPServer(t *testing.T) {
	s := newSDKServer(t)
	if !strings.HasPrefix(s.url, "http://127.0.0.1:") {
		t.Fatalf("the test server is at %s, not on 127.0.0.1", s.url)
	}
	m := startManager(t, Config{Servers: []Server{{Name: "web", URL: s.url,
		Headers: map[string]string{"Authorization": "Bearer t0ken", "X-Airi-Test": "yes"}}}})
	waitFor(t, m, "the server to connect", func() bool { return m.Connected("web") })

	cat := m.Catalog()
	if len(cat) != 1 || cat[0].Name != "web.echo" || cat[0].Server != "web" || cat[0].Description != "Echoes the text." {
		t.Fatalf("catalog = %+v, want web.echo", cat)
	}
	if err := cat[0].Validate(json.RawMessage(`{"text":1}`)); err == nil {
		t.Error("arguments against the listed schema were accepted")
	}
	got, err := m.Call(t.Context(), "web.echo", json.RawMessage(`{"text":"hi"}`))
	if err != nil || got != "echo: hi" {
		t.Fatalf("call = %q, %v; want \"echo: hi\"", got, err)
	}
	seen := s.seen()
	if len(seen) < 2 {
		t.Fatalf("the server saw %d requests, want the connection's and the call's", len(seen))
	}
	for i, h := range seen {
		if h.Get("Authorization") != "Bearer t0ken" || h.Get("X-Airi-Test") != "yes" {
			t.Errorf("request %d came with Authorization %q, X-Airi-Test %q", i, h.Get("Authorization"), h.Get("X-Airi-Test"))
		}
	}
}

// TestToolListChanged adds a tool to a connected server: the server
// sends notifications/tools/list_changed, and the catalog lists the new
// tool, which can then be called.
func TestToolListChanged(t *testing.T) {
	s := newSDKServer(t)
	m := startManager(t, Config{Servers: []Server{{Name: "web", URL: s.url}}})
	waitFor(t, m, "the server to connect", func() bool { return m.Connected("web") })
	if _, ok := m.Lookup("web.shout"); ok {
		t.Fatal("web.shout is listed before the server has it")
	}

	mcp.AddTool(s.mcp, &mcp.Tool{Name: "shout", Description: "Echoes the text, loudly."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.ToUpper(in.Text)}}}, nil, nil
		})
	waitFor(t, m, "the new tool to be listed", func() bool { _, ok := m.Lookup("web.shout"); return ok })

	var names []string
	for _, tool := range m.Catalog() {
		names = append(names, tool.Name)
	}
	if strings.Join(names, " ") != "web.echo web.shout" {
		t.Errorf("catalog = %v, want web.echo and web.shout", names)
	}
	got, err := m.Call(t.Context(), "web.shout", json.RawMessage(`{"text":"hi"}`))
	if err != nil || got != "HI" {
		t.Fatalf("call = %q, %v; want \"HI\"", got, err)
	}
	if m.Starts("web") != 1 {
		t.Errorf("the server was connected %d times; a list change needs no new connection", m.Starts("web"))
	}
}
