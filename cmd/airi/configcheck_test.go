package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airi-go/airi/planner/openai/openaitest"
)

func TestConfigCheck(t *testing.T) {
	refuseJSON := func(_ context.Context, req openaitest.Request) openaitest.Reply {
		if req.Has("response_format") {
			return openaitest.Status(400, "")
		}
		return openaitest.Text(`{"action":"continue"}`)
	}
	accept := func(context.Context, openaitest.Request) openaitest.Reply {
		return openaitest.Text(`{"action":"continue"}`)
	}
	tests := []struct {
		name     string
		answer   openaitest.AnswerFunc
		env      map[string]string
		code     int
		accepted bool
		detail   string
	}{
		{"json mode accepted", accept, map[string]string{"LLM_JSON_MODE": "object"}, exitOK, true, "JSON mode object accepted"},
		{"json mode refused", refuseJSON, map[string]string{"LLM_JSON_MODE": "object"}, exitFailure, false, "set LLM_JSON_MODE=off"},
		{"json mode off", accept, nil, exitOK, true, "JSON mode off"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.NewServer(t, tt.answer)
			env := map[string]string{"LLM_API_BASE_URL": srv.URL(), "LLM_MODEL": "m", "DB_PATH": filepath.Join(t.TempDir(), "sub", "airi.db")}
			for k, v := range tt.env {
				env[k] = v
			}
			code, stdout, stderr := runCommand(t, env, "config", "check", "--json")
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tt.code, stdout, stderr)
			}
			var got struct {
				Checks []check     `json:"checks"`
				Model  *modelProbe `json:"model"`
			}
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatalf("%v: %s", err, stdout)
			}
			if got.Model == nil || got.Model.JSONModeAccepted != tt.accepted || got.Model.Action != "continue" {
				t.Errorf("probe: %+v", got.Model)
			}
			last := got.Checks[len(got.Checks)-1]
			if last.Name != "model call" || !strings.Contains(last.Detail, tt.detail) {
				t.Errorf("model call check: %+v", last)
			}
			if _, err := os.Stat(env["DB_PATH"]); err == nil {
				t.Error("config check created the database")
			}
		})
	}
}

func TestSettingsValidatedBeforeTheDatabaseIsCreated(t *testing.T) {
	db := filepath.Join(t.TempDir(), "airi.db")
	code, _, stderr := runCommand(t, map[string]string{
		"LLM_API_BASE_URL": "http://127.0.0.1:1/v1", "LLM_MODEL": "m", "DB_PATH": db, "TELEGRAM_BOT_TOKEN": "not-a-token",
	}, "run")
	if code != exitUsage || !strings.Contains(stderr, "TELEGRAM_BOT_TOKEN") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("the database was created although the settings were refused")
	}
}

func TestConfigFileKeys(t *testing.T) {
	tests := []struct {
		name, body, wantErr string
		model               string
	}{
		{"lower case", "llm_model: a\n", "", "a"},
		{"upper case", "LLM_MODEL: b\nAIRI_TICK_RETENTION: 7d\n", "", "b"},
		{"both spellings", "LLM_MODEL: b\nllm_model: c\n", "name the same setting", ""},
		{"bad url shows a model endpoint", "llm_api_base_url: localhost\n", "https://api.openai.com/v1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "airi.yaml")
			if err := os.WriteFile(file, []byte(tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := loadConfig(file, envOf(nil))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.LLMModel != tt.model {
				t.Errorf("model %q", c.LLMModel)
			}
		})
	}
}

func TestRetentionSetting(t *testing.T) {
	tests := []struct {
		in   string
		want string
		bad  bool
	}{
		{"30d", "720h0m0s", false}, {"12h", "12h0m0s", false}, {"forever", "0s", false}, {"1s", "1s", false},
		{"-1d", "", true}, {"soon", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			c, err := loadConfig("", envOf(map[string]string{"AIRI_TICK_RETENTION": tt.in}))
			if tt.bad {
				if err == nil {
					t.Fatal("accepted")
				}
				return
			}
			if err != nil || c.TickRetention.String() != tt.want {
				t.Errorf("got %v %v, want %s", c.TickRetention, err, tt.want)
			}
		})
	}
}
