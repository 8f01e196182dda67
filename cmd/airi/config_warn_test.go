package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestUnknownVariablesAreReported(t *testing.T) {
	t.Chdir(t.TempDir())
	env := map[string]string{"AIRI_HISTROY": "5", "AIRI_TEST_FLOOD": "1", "LLM_MODEL": "m", "TELEGRAM_BOT_TOKN": "x", "HOME": "/h", "airi_history": "3"}
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(k string) string { return env[k] },
			environ: func() []string {
				var kv []string
				for k, v := range env {
					kv = append(kv, k+"="+v)
				}
				return kv
			}}
		code := a.run(context.Background(), args)
		return code, out.String(), errOut.String()
	}

	code, stdout, stderr := run("config", "check", "--no-model")
	if code != exitFailure {
		t.Errorf("config check: exit %d, want %d (a check failed)", code, exitFailure)
	}
	for _, want := range []string{"AIRI_HISTROY is not a setting (did you mean AIRI_HISTORY?)", "TELEGRAM_BOT_TOKN is not a setting (did you mean TELEGRAM_BOT_TOKEN?)"} {
		if !strings.Contains(stdout, want) || !strings.Contains(stderr, want) {
			t.Errorf("config check does not say %q:\nstdout:\n%s\nstderr:\n%s", want, stdout, stderr)
		}
	}
	if !strings.Contains(stdout, "FAIL settings") {
		t.Errorf("the settings check does not fail:\n%s", stdout)
	}
	if strings.Contains(stdout+stderr, "AIRI_TEST_FLOOD") || strings.Contains(stdout+stderr, "HOME") || strings.Contains(stdout+stderr, "airi_history") {
		t.Errorf("a variable that is no setting's typo is reported:\n%s\n%s", stdout, stderr)
	}

	_, stdout, stderr = run("actions")
	if !strings.Contains(stderr, "warning: AIRI_HISTROY is not a setting (did you mean AIRI_HISTORY?)") {
		t.Errorf("other commands do not warn at start:\n%s", stderr)
	}
	if strings.Contains(stdout, "AIRI_HISTROY") {
		t.Error("the warning went to stdout")
	}
}
