package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/airi-go/airi/planner/openai/openaitest"
)

// start runs the command in the background and returns its base URL and
// a function that stops it and returns its exit code.
func start(t *testing.T, args ...string) (string, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	var stderr strings.Builder
	code := make(chan int, 1)
	go func() {
		c := run(ctx, args, pw, &stderr)
		pw.Close()
		code <- c
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no URL line: %v (exit %d, stderr %s)", err, <-code, stderr.String())
	}
	go io.Copy(io.Discard, pr)
	return strings.TrimSpace(line), func() int {
		cancel()
		return <-code
	}
}

func chat(t *testing.T, base, key, model, user, state string) (string, error) {
	t.Helper()
	oc := goopenai.DefaultConfig(key)
	oc.BaseURL = base
	resp, err := goopenai.NewClientWithConfig(oc).CreateChatCompletion(t.Context(), goopenai.ChatCompletionRequest{
		Model: model, User: user,
		Messages: []goopenai.ChatCompletionMessage{
			{Role: "system", Content: `Runtime: you are "Juni" on console, direct chat, channel id "console".`},
			{Role: "user", Content: state},
		},
	})
	if err != nil {
		return "", err
	}
	return resp.Choices[0].Message.Content, nil
}

func TestFakemodelEchoes(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "requests.jsonl")
	base, stop := start(t, "--log", logPath, "--key", "k-123", "--model", "fake")
	if !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasSuffix(base, "/v1") {
		t.Fatalf("URL line = %q", base)
	}
	got, err := chat(t, base, "k-123", "fake", "airi:console", "New messages:\n- id \"1\" 10:00 \"you\": \"hello there\"\nAnswer with one JSON action.")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"action":"send_message","channelId":"console","content":"echo: hello there"}`; got != want {
		t.Errorf("answer = %s, want %s", got, want)
	}
	got, err = chat(t, base, "k-123", "fake", "airi:console", "No new messages here.")
	if err != nil || got != `{"action":"continue"}` {
		t.Errorf("answer = %s, %v; want continue", got, err)
	}
	_, err = chat(t, base, "wrong", "fake", "airi:console", "x")
	var apiErr *goopenai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 401 {
		t.Errorf("wrong key: err = %v, want 401", err)
	}
	if code := stop(); code != 0 {
		t.Errorf("exit code %d", code)
	}
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("log has %d lines, want 2:\n%s", len(lines), data)
	}
	var rec struct {
		Call  int
		User  string
		Reply string
	}
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil || rec.Call != 1 || rec.User != "airi:console" || rec.Reply != "answer" {
		t.Errorf("log line %s (%v)", lines[0], err)
	}
}

func TestFakemodelFaults(t *testing.T) {
	base, stop := start(t, "--faults", "100%", "--seed", "3", "--retry-after", "0")
	defer stop()
	// The same seed drawn in-process tells which fault each call gets.
	expect := openaitest.Faults(openaitest.Sequence(openaitest.Text("{}")), openaitest.FaultOptions{Rate: 1, Seed: 3})
	oc := goopenai.DefaultConfig("k")
	oc.BaseURL = base
	api := goopenai.NewClientWithConfig(oc)
	kinds := map[string]int{}
	for i := range 12 {
		want := expect(t.Context(), openaitest.Request{Call: i + 1})
		ctx, cancel := context.WithCancel(t.Context())
		if want.Hang {
			// A hanging call ends when the client gives up; the request
			// must reach the server so that its draws stay in step.
			ctx, cancel = context.WithTimeout(t.Context(), 200*time.Millisecond)
		}
		resp, err := api.CreateChatCompletion(ctx, goopenai.ChatCompletionRequest{
			Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "New messages:\n- you: hi"}},
		})
		cancel()
		var apiErr *goopenai.APIError
		switch {
		case want.Hang:
			kinds[openaitest.FaultHang]++
			if err == nil {
				t.Errorf("call %d: answered, want a hang", i+1)
			}
		case want.Status != 0:
			kinds[fmt.Sprint(want.Status)]++
			if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != want.Status {
				t.Errorf("call %d: err = %v, want status %d", i+1, err, want.Status)
			}
		default:
			kinds[openaitest.FaultProse]++
			if err != nil || resp.Choices[0].Message.Content != want.Content {
				t.Errorf("call %d: %v, want prose %q", i+1, err, want.Content)
			}
		}
	}
	if len(kinds) < 3 {
		t.Errorf("fault kinds seen: %v, want a mix", kinds)
	}
}

func TestFakemodelUsage(t *testing.T) {
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"--faults", "2"}, 2},
		{[]string{"--faults", "lots"}, 2},
		{[]string{"--addr", "0.0.0.0:80"}, 2},
		{[]string{"--nope"}, 2},
		{[]string{"extra"}, 2},
	}
	for _, tt := range tests {
		var out, errOut strings.Builder
		if code := run(t.Context(), tt.args, &out, &errOut); code != tt.want {
			t.Errorf("run(%v) = %d, want %d", tt.args, code, tt.want)
		}
		if out.Len() != 0 || errOut.Len() == 0 {
			t.Errorf("run(%v): stdout %q, stderr %q; want the problem on stderr only", tt.args, out.String(), errOut.String())
		}
	}
}

func TestLoopback(t *testing.T) {
	for in, want := range map[string]string{"0": "127.0.0.1:0", ":8080": "127.0.0.1:8080", "localhost:9": "127.0.0.1:9", "127.0.0.1:1": "127.0.0.1:1"} {
		if got, err := loopback(in); err != nil || got != want {
			t.Errorf("loopback(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := loopback("10.0.0.1:80"); err == nil {
		t.Errorf("loopback accepted 10.0.0.1")
	}
}
