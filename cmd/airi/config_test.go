package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigDefaults(t *testing.T) {
	c, err := loadConfig("", envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.DBPath != "./data/airi.db" || c.History != 20 || c.Debounce != 800*time.Millisecond || c.MaxIterations != 5 ||
		c.Interrupt != "cancel" || !c.SendUser || c.AdminAddr != "127.0.0.1:7070" || c.LLMTimeout != time.Minute || c.LLMTemperature != nil ||
		c.MaxSendChars != 4000 || c.MaxSendParts != 3 || c.PromptMaxTokens != 8000 {
		t.Errorf("defaults: %+v", c)
	}
}

func TestConfigFileThenEnvironment(t *testing.T) {
	file := filepath.Join(t.TempDir(), "airi.yaml")
	body := "llm_model: from-file\nairi_history: 30\nllm_extra_body:\n  enable_thinking: false\nairi_allow_channels: a, b\nairi_max_send_chars: 500\nairi_max_send_parts: 2\nairi_prompt_max_tokens: 12000\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := loadConfig(file, envOf(map[string]string{"LLM_MODEL": "from-env", "LLM_TEMPERATURE": "0.3", "AIRI_MAX_SEND_PARTS": "1"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.LLMModel != "from-env" || c.History != 30 || c.LLMExtraBody["enable_thinking"] != false || len(c.AllowChannels) != 2 || *c.LLMTemperature != 0.3 ||
		c.MaxSendChars != 500 || c.MaxSendParts != 1 || c.PromptMaxTokens != 12000 {
		t.Errorf("merged: %+v", c)
	}
}

func TestConfigReportsEveryProblem(t *testing.T) {
	_, err := loadConfig("", envOf(map[string]string{
		"AIRI_DEBOUNCE": "soon", "AIRI_MAX_ITERATIONS": "0", "LLM_JSON_MODE": "xml",
		"LLM_EXTRA_BODY": "[1]", "AIRI_INTERRUPT": "maybe", "LLM_API_BASE_URL": "localhost",
		"AIRI_MAX_SEND_CHARS": "lots", "AIRI_MAX_SEND_PARTS": "0", "AIRI_PROMPT_MAX_TOKENS": "500",
	}))
	if err == nil {
		t.Fatal("bad settings accepted")
	}
	lines := strings.Split(err.Error(), "\n")
	for _, name := range []string{"AIRI_DEBOUNCE", "AIRI_MAX_ITERATIONS", "LLM_JSON_MODE", "LLM_EXTRA_BODY", "AIRI_INTERRUPT", "LLM_API_BASE_URL", "AIRI_MAX_SEND_CHARS", "AIRI_MAX_SEND_PARTS", "AIRI_PROMPT_MAX_TOKENS"} {
		found := false
		for _, l := range lines {
			found = found || strings.HasPrefix(l, name+"=")
		}
		if !found {
			t.Errorf("no line names %s:\n%s", name, err)
		}
	}
	file := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(file, []byte("llm_modle: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadConfig(file, envOf(nil)); err == nil || !strings.Contains(err.Error(), `unknown key "llm_modle"`) {
		t.Errorf("unknown key: %v", err)
	}
}

func TestRunWithoutAdapterSuggestsChat(t *testing.T) {
	var errOut strings.Builder
	a := &app{stdin: strings.NewReader(""), stdout: &strings.Builder{}, stderr: &errOut, getenv: envOf(map[string]string{"LLM_API_BASE_URL": "http://127.0.0.1:1/v1", "LLM_MODEL": "m"})}
	if code := a.run(t.Context(), []string{"run"}); code != exitUsage {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(errOut.String(), "airi chat") {
		t.Errorf("no suggestion: %s", errOut.String())
	}
}
