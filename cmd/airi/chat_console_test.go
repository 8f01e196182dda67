package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/planner/openai/openaitest"
)

// TestChatAnswersAroundAHugeLine types a 1 MiB line between two short
// ones: airi chat reads it (cut to the content cap), answers all three and
// exits when the input ends.
func TestChatAnswersAroundAHugeLine(t *testing.T) {
	out := newLineWriter()
	srv := openaitest.NewServer(t, ackModel(out.printed, nil))
	errOut := &strings.Builder{}
	huge := "two tok-2 " + strings.Repeat("x", 1<<20)
	in := strings.NewReader("one tok-1\n" + huge + "\nthree tok-3\n")
	a := &app{stdin: in, stdout: out, stderr: &lockedWriter{w: errOut}, getenv: chatEnv(t, srv.URL(), nil)}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if code := a.run(ctx, []string{"chat"}); code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if counts := ackCounts(out.printed()); !allAcked(counts, 3) {
		t.Errorf("not every message was answered: %v\n%s", counts, strings.Join(out.printed(), "\n"))
	}
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if len(m.Content) > 1<<19 {
				t.Fatalf("a request holds a message of %d bytes", len(m.Content))
			}
		}
	}
}
