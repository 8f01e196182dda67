package openai

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/airi-go/airi/planner/openai/openaitest"
)

// TestNoGoroutineLeft runs calls that succeed, retry, time out and get
// cancelled, then checks that closing the client and the server leaves no
// goroutine behind.
func TestNoGoroutineLeft(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())

	arrived := make(chan struct{}, 1)
	srv := openaitest.NewServer(t, func(_ context.Context, r openaitest.Request) openaitest.Reply {
		switch r.User {
		case "hang":
			select {
			case arrived <- struct{}{}:
			default:
			}
			return openaitest.Hang()
		case "flaky":
			if r.Call%2 == 1 {
				return openaitest.Status(503, "0")
			}
		}
		return openaitest.Text(okAction)
	})
	cfg := testConfig(srv.URL())
	cfg.Timeout = 200 * time.Millisecond
	c, _ := newTestClient(t, cfg, nil)

	for _, user := range []string{"ok", "flaky", "ok"} {
		req := testRequest()
		req.User = user
		if _, err := c.Complete(t.Context(), req); err != nil {
			t.Fatalf("%s: %v", user, err)
		}
	}
	req := testRequest()
	req.User = "hang"
	cfg.MaxAttempts = 1
	c1, _ := newTestClient(t, cfg, nil)
	if _, err := c1.Complete(t.Context(), req); Class(err) != ClassTimeout {
		t.Errorf("hang: err = %v, want a timeout", err)
	}
	<-arrived
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-arrived
		cancel()
	}()
	c2, _ := newTestClient(t, testConfig(srv.URL()), nil)
	if _, err := c2.Complete(ctx, req); !errors.Is(err, context.Canceled) {
		t.Errorf("cancel: err = %v", err)
	}

	c.CloseIdleConnections()
	c1.CloseIdleConnections()
	c2.CloseIdleConnections()
	srv.Close()
}

func TestConfigNeverPrintsKey(t *testing.T) {
	cfg := testConfig("http://user:pw-secret-123@127.0.0.1:1/v1")
	for _, s := range []string{cfg.String(), cfg.GoString()} {
		if strings.Contains(s, testKey) || strings.Contains(s, "pw-secret-123") {
			t.Errorf("config printed a secret: %s", s)
		}
	}
	core, logs := observer.New(zapcore.DebugLevel)
	zap.New(core).Info("model settings", zap.Object("config", cfg), zap.Any("any", cfg))
	line, _ := json.Marshal(logs.All()[0].ContextMap())
	if strings.Contains(string(line), testKey) || strings.Contains(string(line), "pw-secret-123") || !strings.Contains(string(line), "test-model") {
		t.Errorf("log line = %s, want the settings without secrets", line)
	}
}
