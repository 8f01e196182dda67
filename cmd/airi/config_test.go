package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/internal/settings"
	"github.com/airi-go/airi/runtime"
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

func TestConfigFileValuesKeepTheirType(t *testing.T) {
	file := filepath.Join(t.TempDir(), "airi.yaml")
	body := `llm_api_key: 0123
airi_allow_channels: [a, "-100", b]
airi_admins: [telegram:1, "qq:2"]
airi_history: "25"
airi_debounce: 0
llm_send_user: false
llm_temperature: 1
llm_extra_body:
  enable_thinking: false
  options: {depth: 2}
airi_bot_name:
`
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := loadConfig(file, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.LLMKey != "0123" {
		t.Errorf("llm_api_key = %q, want the text as written", c.LLMKey)
	}
	if strings.Join(c.AllowChannels, "|") != "a|-100|b" || strings.Join(c.Admins, "|") != "telegram:1|qq:2" {
		t.Errorf("lists = %q, %q", c.AllowChannels, c.Admins)
	}
	if c.History != 25 || c.Debounce != 0 || c.SendUser || c.LLMTemperature == nil || *c.LLMTemperature != 1 || c.BotName != "" {
		t.Errorf("values = %+v", c)
	}
	if opts, ok := c.LLMExtraBody["options"].(map[string]any); !ok || opts["depth"] != 2.0 {
		t.Errorf("extra body = %#v, want the same values as from JSON", c.LLMExtraBody)
	}
}

func TestConfigFileRefusesValuesOfTheWrongType(t *testing.T) {
	tests := []struct{ body, want string }{
		{"airi_history: 30.5\n", `AIRI_HISTORY="30.5": want a whole number`},
		{"airi_history: [1]\n", `AIRI_HISTORY="[1]": want a whole number`},
		{"llm_send_user: 1\n", `LLM_SEND_USER="1": want true or false`},
		{"llm_model: [a, b]\n", `LLM_MODEL="[a, b]": want a single value`},
		{"airi_debounce: true\n", `AIRI_DEBOUNCE="true": want a positive Go duration`},
		{"llm_extra_body: [1]\n", `LLM_EXTRA_BODY="[1]": want a JSON object`},
		{"airi_admins: [telegram:1, bob]\n", `AIRI_ADMINS="bob": want platform-qualified`},
		{"- llm_model\n", "want a map of settings"},
		{"airi_histroy: 5\n", `unknown key "airi_histroy" (did you mean airi_history?)`},
		{"channels:\n  x:\n    airi_group_mod: all\n", `"x": unknown or not per-channel key "airi_group_mod" (did you mean airi_group_mode?)`},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "airi.yaml")
			if err := os.WriteFile(file, []byte(tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := loadConfig(file, envOf(nil)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want it to contain %s", err, tt.want)
			}
		})
	}
}

func TestConfigEnvironmentWinsOverAFileValueItReplaces(t *testing.T) {
	file := filepath.Join(t.TempDir(), "airi.yaml")
	if err := os.WriteFile(file, []byte("airi_history: lots\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := loadConfig(file, envOf(map[string]string{"AIRI_HISTORY": "7"}))
	if err != nil || c.History != 7 {
		t.Errorf("history %d, %v: the environment's value replaces the file's", c.History, err)
	}
}

func TestSettingsTable(t *testing.T) {
	seen := map[string]bool{}
	def := defaultConfig()
	for _, s := range settingsTable {
		t.Run(s.name, func(t *testing.T) {
			if seen[s.name] {
				t.Fatal("listed twice")
			}
			seen[s.name] = true
			if s.name != strings.ToUpper(s.name) || s.doc == "" || s.parse == nil {
				t.Errorf("entry %+v: want an upper-case name, a doc and a parser", s)
			}
			if (s.def == "") == (s.unset == "") {
				t.Errorf("want either a default or words for unset, got %q and %q", s.def, s.unset)
			}
			if !s.channel {
				return
			}
			// A per-channel setting is parsed into a scratch config that
			// holds only the channel's attention settings and budget: its
			// target must lie there.
			probe := map[string]string{
				"AIRI_GROUP_MODE": "all", "AIRI_ALIASES": "x", "AIRI_AMBIENT_EVERY": "99", "AIRI_AMBIENT_MIN_GAP": "99s",
				"AIRI_GROUP_COOLDOWN": "99s", "AIRI_SENDER_RATE": "9/9s", "AIRI_IGNORE_BOTS": "false", "AIRI_BOT_REPLIES": "99", "AIRI_BOT_PAIR_RATE": "7/7s",
				"AIRI_CHANNEL_BUDGET_TOKENS_DAY": "99", "AIRI_TZ": "Asia/Tokyo",
			}[s.name]
			if probe == "" {
				t.Fatal("no probe value for this per-channel setting")
			}
			c := def
			if err := s.apply(&c, settings.FromText(probe)); err != nil {
				t.Fatal(err)
			}
			if reflect.DeepEqual(c.Attention.Default, def.Attention.Default) && c.ChannelBudgetDay == def.ChannelBudgetDay && c.TZ == def.TZ {
				t.Error("a per-channel setting must change the attention settings, the channel budget or the time zone")
			}
			c.Attention.Default, c.ChannelBudgetDay, c.TZ = def.Attention.Default, def.ChannelBudgetDay, def.TZ
			if !reflect.DeepEqual(c, def) {
				t.Error("a per-channel setting changed more than the attention settings, the channel budget and the time zone")
			}
		})
	}
}

// TestRuntimeDefaultsAreTheTable checks that the bot built with nothing
// set is the bot runtime.Defaults describes, so that tests and programs
// that build it without the settings table run the same bot.
func TestRuntimeDefaultsAreTheTable(t *testing.T) {
	got, want := defaultConfig().runtime(), runtime.Defaults()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the table's defaults give\n%+v\nruntime.Defaults is\n%+v", got, want)
	}
}

func TestConfigChannelTimeZones(t *testing.T) {
	file := filepath.Join(t.TempDir(), "airi.yaml")
	body := "airi_tz: Europe/Berlin\nairi_schedule_max: 5\nchannels:\n  \"-100\":\n    airi_tz: Asia/Tokyo\n  \"-200\":\n    airi_group_mode: all\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := loadConfig(file, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	rc := c.runtime()
	if rc.TZ == nil || rc.TZ.String() != "Europe/Berlin" || rc.ScheduleMax != 5 {
		t.Fatalf("TZ %v, max %d", rc.TZ, rc.ScheduleMax)
	}
	if loc := rc.ChannelTZ["-100"]; loc == nil || loc.String() != "Asia/Tokyo" {
		t.Errorf("channel -100 zone = %v, want Asia/Tokyo", loc)
	}
	if _, ok := rc.ChannelTZ["-200"]; ok {
		t.Error("a channel without airi_tz got a zone of its own")
	}
	if _, err := loadConfig(file, envOf(map[string]string{"AIRI_TZ": "Mars/Olympus"})); err == nil || !strings.Contains(err.Error(), "AIRI_TZ") {
		t.Errorf("bad zone error = %v, want it to name AIRI_TZ", err)
	}
}
