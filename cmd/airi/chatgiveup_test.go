package main

import (
	"strings"
	"testing"
)

// TestPipedChatGivesUp: `echo hi | airi chat` against an address where
// nothing listens exits 1 with one line once LLM_GIVE_UP has passed, and
// the message stays unread.
func TestPipedChatGivesUp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	db := dbIn(t)
	env := append(procEnv("http://"+freeAddr(t)+"/v1", db), "LLM_GIVE_UP=2s")
	code, stdout, stderr := runOnce(t, env, "hi\n", nil, "chat")
	if code != exitFailure {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr)
	}
	plain := plainLines(stderr)
	if len(plain) != 1 || !strings.HasPrefix(plain[0], "airi chat: gave up after the model failed") ||
		!strings.Contains(plain[0], "LLM_API_BASE_URL") || !strings.Contains(plain[0], "1 message(s) stay unread") {
		t.Errorf("want one clear line, got %q", plain)
	}
	if strings.Count(stderr, `"level":"error"`) != 1 {
		t.Errorf("the failure is logged %d times, want once:\n%s", strings.Count(stderr, `"level":"error"`), stderr)
	}
	if stdout != "" {
		t.Errorf("stdout: %q", stdout)
	}
	msgs := storedMessages(t, db)
	if len(msgs) != 1 || msgs[0].Read {
		t.Errorf("stored %+v, want the message kept unread", msgs)
	}
}
