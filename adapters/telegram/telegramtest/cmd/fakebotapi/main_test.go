package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
)

func TestServesUntilCancelled(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"-username", "@my_bot"}, outW, io.Discard)
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSpace(line)
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("first line %q is not a loopback base URL", line)
	}
	go io.Copy(io.Discard, outR)

	client := &http.Client{Transport: &http.Transport{}}
	defer client.Transport.(*http.Transport).CloseIdleConnections()
	resp, err := client.Get(base + "/bot" + telegramtest.DefaultToken + "/getMe")
	if err != nil {
		t.Fatal(err)
	}
	var me struct {
		OK     bool `json:"ok"`
		Result struct {
			Username string `json:"username"`
		} `json:"result"`
	}
	err = json.NewDecoder(resp.Body).Decode(&me)
	resp.Body.Close()
	if err != nil || !me.OK || me.Result.Username != "my_bot" {
		t.Fatalf("getMe answered %+v, %v", me, err)
	}
	resp, err = client.Post(base+"/_control/message", "application/json", strings.NewReader(`{"text":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("control message answered %s", resp.Status)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

func TestRefusesNonLoopback(t *testing.T) {
	if code := run(context.Background(), []string{"-addr", "0.0.0.0:0"}, io.Discard, io.Discard); code != 2 {
		t.Fatalf("exit code %d, want 2", code)
	}
}
