package scheduler_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/state"
)

// logged returns the observed entries with the message msg.
func logged(logs *observer.ObservedLogs, msg string) []observer.LoggedEntry {
	return logs.FilterMessage(msg).AllUntimed()
}

func TestOperatorLogs(t *testing.T) {
	tests := []struct {
		name       string
		logContent bool
		answer     string
	}{
		{"text not logged by default", false, `{"action":"send_message","channelId":"c1","content":"hello back"}`},
		{"text logged with LOG_CONTENT", true, `{"action":"send_message","channelId":"c1","content":"hello back"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			core, logs := observer.New(zapcore.InfoLevel)
			m := newModel(func(context.Context, int, planner.Request) (string, error) { return tt.answer, nil })
			h := newHarnessLog(t, scheduler.Config{LogContent: tt.logContent, NoDebounce: true}, m, zap.New(core))
			h.say("secret words")
			h.sched.Wake(context.Background(), "c1", "message")

			recv := logged(logs, "message received")
			if len(recv) != 1 {
				t.Fatalf("%d 'message received' lines, want 1", len(recv))
			}
			f := recv[0].ContextMap()
			if f["channel"] != "c1" || f["chars"] != int64(len("secret words")) {
				t.Errorf("received fields: %v", f)
			}
			if _, has := f["text"]; has != tt.logContent {
				t.Errorf("text logged = %v, want %v", has, tt.logContent)
			}
			sent := logged(logs, "message sent")
			if len(sent) != 1 || sent[0].ContextMap()["outcome"] != "sent" {
				t.Fatalf("sent lines: %v", sent)
			}
			for _, e := range logs.All() {
				if !tt.logContent && strings.Contains(fmt.Sprint(e.ContextMap()), "secret") {
					t.Errorf("the text is in a log line: %s %v", e.Message, e.ContextMap())
				}
			}
		})
	}
}

func TestModelErrorLoggedOnce(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	refused := fmt.Errorf("model call: %w: model endpoint answered 401 Unauthorized (check LLM_API_KEY)", planner.ErrPermanent)
	m := newModel(func(context.Context, int, planner.Request) (string, error) { return "", refused })
	h := newHarnessLog(t, scheduler.Config{NoDebounce: true}, m, zap.New(core))
	for range 3 {
		h.say("hi")
		h.sched.Wake(context.Background(), "c1", "message")
	}
	if n := len(m.requests()); n != 3 {
		t.Fatalf("%d model calls, want 3", n)
	}
	errs := logs.FilterLevelExact(zapcore.ErrorLevel).AllUntimed()
	if len(errs) != 1 {
		t.Fatalf("%d error lines for one repeated failure, want 1: %v", len(errs), errs)
	}
	text := errs[0].ContextMap()["error"].(string)
	if strings.Count(text, "model call:") != 1 || !strings.Contains(text, "LLM_API_KEY") {
		t.Errorf("error text %q", text)
	}
	if h.sched.ModelErr() == nil {
		t.Error("ModelErr is nil after a permanent failure")
	}
	ticks, err := h.store.Ticks(context.Background(), state.TickFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range ticks {
		if strings.Count(tk.ModelError, "model call:") != 1 {
			t.Errorf("recorded error %q", tk.ModelError)
		}
	}
}

func TestParseFailureLoggedWithKind(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	m := newModel(func(_ context.Context, n int, _ planner.Request) (string, error) {
		if n == 1 {
			return `{"action":"dance"}`, nil
		}
		return `{"action":"continue"}`, nil
	})
	h := newHarnessLog(t, scheduler.Config{NoDebounce: true}, m, zap.New(core))
	h.say("hi")
	h.sched.Wake(context.Background(), "c1", "message")
	lines := logged(logs, "answer did not parse; the model is told why")
	if len(lines) != 1 || lines[0].ContextMap()["kind"] != "unknown-action" {
		t.Fatalf("parse failure lines: %v", lines)
	}
}

// TestModelDegraded checks readiness's view of the model: calls that
// fail for longer than the threshold make it degraded, naming the
// error; once the model serves again, its own probe clears that without
// any chat waking the bot.
func TestModelDegraded(t *testing.T) {
	down := true
	m := newModel(func(context.Context, int, planner.Request) (string, error) {
		if down {
			return "", errors.New("model call: dial tcp 127.0.0.1:1: connection refused")
		}
		return `{"action":"continue"}`, nil
	})
	h := newHarnessLog(t, scheduler.Config{NoDebounce: true, ModelProbe: time.Nanosecond}, m, zap.NewNop())
	ctx := context.Background()
	if err := h.sched.ModelDegraded(ctx, 0); err != nil {
		t.Fatalf("degraded before any call: %v", err)
	}
	h.say("hi")
	h.sched.Wake(ctx, "c1", "message")
	if err := h.sched.ModelDegraded(ctx, time.Hour); err != nil {
		t.Errorf("degraded after a failure, under the threshold: %v", err)
	}
	err := h.sched.ModelDegraded(ctx, 0)
	if err == nil || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "every model call has failed") {
		t.Fatalf("ModelDegraded = %v; want the model's error", err)
	}
	calls := len(m.requests())
	down = false
	if err := h.sched.ModelDegraded(ctx, 0); err != nil {
		t.Errorf("still degraded once the model serves: %v", err)
	}
	if len(m.requests()) != calls+1 {
		t.Errorf("%d model calls to see it back, want 1 probe", len(m.requests())-calls)
	}
	if err := h.sched.ModelDegraded(ctx, 0); err != nil || len(m.requests()) != calls+1 {
		t.Errorf("serving model: ModelDegraded = %v after %d more calls; want nil and no probe", err, len(m.requests())-calls-1)
	}
}

// TestStoreDownPausesWakes checks that while the store refuses writes a
// wake makes no model call and is tried again later, and that it calls
// the model once the store takes writes again.
func TestStoreDownPausesWakes(t *testing.T) {
	m := newModel(func(context.Context, int, planner.Request) (string, error) { return `{"action":"continue"}`, nil })
	h := newHarnessLog(t, scheduler.Config{NoDebounce: true}, m, zap.NewNop())
	h.say("hi")
	h.unwritable = errors.New("database or disk is full")
	rep := h.sched.Wake(context.Background(), "c1", "message")
	if !rep.StoreDown || rep.Iterations != 0 || len(m.requests()) != 0 {
		t.Fatalf("wake while the store is down = %+v after %d model calls; want it paused before any call", rep, len(m.requests()))
	}
	h.unwritable = nil
	rep = h.sched.Wake(context.Background(), "c1", "retry")
	if rep.StoreDown || len(m.requests()) != 1 {
		t.Fatalf("wake once the store takes writes = %+v after %d model calls; want one call", rep, len(m.requests()))
	}
}
