package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"
)

func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"-legacy", "-token", "s3", "-logins", "qq:1,discord:2"}, pw, io.Discard)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	if !lines.Scan() {
		t.Fatal("no root URL printed")
	}
	root := lines.Text()
	if !lines.Scan() || lines.Text() != "ws"+strings.TrimPrefix(root, "http")+"/satori/v1/events" {
		t.Fatalf("second line %q does not name the event stream of %s", lines.Text(), root)
	}
	go io.Copy(io.Discard, pr)

	c, _, err := websocket.Dial(ctx, lines.Text(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"op":3,"body":{"token":"s3"}}`)); err != nil {
		t.Fatal(err)
	}
	_, data, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ready struct {
		Op   int `json:"op"`
		Body struct {
			Logins []struct {
				Platform string `json:"platform"`
				SelfID   string `json:"self_id"`
			} `json:"logins"`
		} `json:"body"`
	}
	if err := json.Unmarshal(data, &ready); err != nil || ready.Op != 4 || len(ready.Body.Logins) != 2 || ready.Body.Logins[1].SelfID != "2" {
		t.Fatalf("READY = %s (%v)", data, err)
	}
	resp, err := http.Post(root+"/_control/messages", "application/json", strings.NewReader(`{"channelId":"c","userId":"u","content":"hi","login":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, data, err = c.Read(ctx); err != nil || !strings.Contains(string(data), `"platform":"discord"`) {
		t.Fatalf("event = %s (%v)", data, err)
	}

	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit code %d after interrupt, want 0", code)
	}
}

func TestBadFlags(t *testing.T) {
	if code := run(context.Background(), []string{"-logins", "nocolon"}, io.Discard, io.Discard); code != 2 {
		t.Errorf("exit code %d, want 2", code)
	}
}
