package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/airi-go/airi/prompts"
)

func TestPromptInit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my", "prompts")
	code, stdout, stderr := runCommand(t, nil, "prompt", "init", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 {
		t.Fatal("no template written")
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
		if !strings.Contains(stdout, filepath.Join(dir, e.Name())) {
			t.Errorf("stdout does not name %s:\n%s", e.Name(), stdout)
		}
	}
	if !strings.Contains(stdout, "PROMPTS_DIR="+dir) {
		t.Errorf("stdout lacks the PROMPTS_DIR line:\n%s", stdout)
	}
	if _, err := prompts.Load(dir, nil); err != nil {
		t.Fatalf("the written templates do not load: %v", err)
	}
	for _, args := range [][]string{{"--platform", "console"}, {"--platform", "telegram", "--group"}, {"--platform", "satori"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			embedded := renderJSON(t, nil, args...)
			written := renderJSON(t, map[string]string{"PROMPTS_DIR": dir}, args...)
			if !reflect.DeepEqual(embedded, written) {
				t.Errorf("the written templates render another request:\nembedded %+v\nwritten  %+v", embedded, written)
			}
		})
	}
}

func TestPromptInitRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	edited := filepath.Join(dir, "persona.md")
	if err := os.WriteFile(edited, []byte("my persona"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCommand(t, nil, "prompt", "init", dir)
	if code != exitFailure {
		t.Fatalf("exit %d, want %d: %s", code, exitFailure, stderr)
	}
	if !strings.Contains(stderr, edited) || !strings.Contains(stderr, "--force") {
		t.Errorf("the error does not name the file and --force: %s", stderr)
	}
	if stdout != "" {
		t.Errorf("stdout: %s", stdout)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in the directory, want only the one that was there", len(entries))
	}
	if b, _ := os.ReadFile(edited); string(b) != "my persona" {
		t.Errorf("the existing file was changed: %q", b)
	}

	code, _, stderr = runCommand(t, nil, "prompt", "init", dir, "--force")
	if code != exitOK {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	want, err := fs.ReadFile(prompts.Embedded(), "persona.md")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(edited); string(b) != string(want) {
		t.Errorf("--force did not write the embedded persona: %q", b)
	}
}

func TestPromptInitUsage(t *testing.T) {
	for _, args := range [][]string{{"prompt", "init"}, {"prompt", "init", "a", "b"}} {
		if code, _, _ := runCommand(t, nil, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}
