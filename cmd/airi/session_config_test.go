package main

import (
	"testing"
	"time"

	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/scheduler/replay"
)

// TestSessionConfigReproducesTheHeader checks that a session's header
// wins over the operator's settings wherever it speaks, and that what it
// leaves zero is the runtime's default rather than the operator's value.
func TestSessionConfigReproducesTheHeader(t *testing.T) {
	op, err := parseConfig(map[string]string{
		"AIRI_BOT_NAME": "Operator", "LLM_RESPONSE_LANGUAGE": "German", "AIRI_HISTORY": "50", "AIRI_MAX_ITERATIONS": "9",
		"AIRI_INTERRUPT": "cancel", "AIRI_SLEEP_MAX": "1h", "AIRI_ALLOW_CHANNELS": "x", "AIRI_GROUP_MODE": "addressed",
		"AIRI_AMBIENT_EVERY": "99", "AIRI_BUDGET_TOKENS_DAY": "10", "LLM_MODEL": "m",
	})
	if err != nil {
		t.Fatal(err)
	}
	op.Attention.Channels = map[string]attention.Settings{"-1": {Mode: attention.ModeAll}}
	def := defaultConfig()

	t.Run("named settings", func(t *testing.T) {
		h := &replay.Header{Turn: "send-ends", Attention: "ambient", Settings: replay.Settings{
			BotName: "Juni", Language: "English", History: 7, MaxIterations: 2, SleepMaxMS: 60000, SendUser: true, AllowChannels: []string{"c"},
		}}
		c := sessionConfig(op, h)
		if c.BotName != "Juni" || c.Language != "English" || c.History != 7 || c.MaxIterations != 2 || c.Interrupt != "finish" ||
			c.SleepMax != time.Minute || !c.SendUser || len(c.AllowChannels) != 1 || c.AllowChannels[0] != "c" || c.Turn != scheduler.TurnSendEnds {
			t.Errorf("config = %+v", c)
		}
		if c.Attention.For("-1").Mode != attention.ModeAmbient || c.Attention.Default.AmbientEvery != attention.Defaults().AmbientEvery {
			t.Errorf("attention = %+v, want the defaults in the session's mode for every channel", c.Attention)
		}
		if c.LLMModel != "m" || c.BudgetDay != 0 || c.ContinueDelay != 0 {
			t.Errorf("model %q, budget %d, continue delay %s: want the model kept, budgets and delays off", c.LLMModel, c.BudgetDay, c.ContinueDelay)
		}
	})
	t.Run("zero settings", func(t *testing.T) {
		c := sessionConfig(op, &replay.Header{Settings: replay.Settings{Interrupt: true}})
		if c.BotName != "" || c.Language != "" || c.History != def.History || c.MaxIterations != def.MaxIterations ||
			c.Interrupt != "cancel" || c.SleepMax != def.SleepMax || !c.SendUser || c.AllowChannels != nil {
			t.Errorf("config = %+v, want the runtime's defaults where the header is silent", c)
		}
		if c.Turn != scheduler.TurnContinue || c.Attention.Default.Mode != attention.ModeAll {
			t.Errorf("turn %q, mode %q: a header without them predates them", c.Turn, c.Attention.Default.Mode)
		}
	})
}
