package runtime

import (
	"testing"
	"time"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/tools"
)

// TestSessionConfigReproducesTheHeader checks that a session's header
// wins over the operator's settings wherever it speaks, and that what it
// leaves zero is the runtime's default rather than the operator's value.
func TestSessionConfigReproducesTheHeader(t *testing.T) {
	op := Config{
		BotName: "Operator", Language: "German", History: 50, MaxIterations: 9, Interrupt: true,
		SleepMax: time.Hour, AllowChannels: []string{"x"}, ContinueDelay: time.Second, PromptsDir: "/prompts",
		Attention: attention.Policy{
			Default:  attention.Settings{Mode: attention.ModeAddressed, AmbientEvery: 99},
			Channels: map[string]attention.Settings{"-1": {Mode: attention.ModeAll}},
		},
		Budget: budget.Config{Daily: 10},
		Tools:  tools.Config{Servers: []tools.Server{{Name: "everything", Command: []string{"node", "index.js"}}}},
	}
	t.Run("named settings", func(t *testing.T) {
		h := &replay.Header{Turn: "send-ends", Attention: "ambient", Settings: replay.Settings{
			BotName: "Juni", Language: "English", History: 7, MaxIterations: 2, SleepMaxMS: 60000, SendUser: true, AllowChannels: []string{"c"},
		}}
		c := SessionConfig(op, h)
		if c.BotName != "Juni" || c.Language != "English" || c.History != 7 || c.MaxIterations != 2 || c.Interrupt ||
			c.SleepMax != time.Minute || !c.SendUser || len(c.AllowChannels) != 1 || c.AllowChannels[0] != "c" || c.Turn != scheduler.TurnSendEnds {
			t.Errorf("config = %+v", c)
		}
		if c.Attention.For("-1").Mode != attention.ModeAmbient || c.Attention.Default.AmbientEvery != attention.Defaults().AmbientEvery {
			t.Errorf("attention = %+v, want the defaults in the session's mode for every channel", c.Attention)
		}
		if c.PromptsDir != "/prompts" || c.Budget.Enabled() || c.ContinueDelay != 0 {
			t.Errorf("prompts %q, budget %+v, continue delay %s: want the prompts kept, budgets and delays off", c.PromptsDir, c.Budget, c.ContinueDelay)
		}
		if c.Tools.Enabled() {
			t.Error("a replayed session would start tool servers")
		}
		if op.Attention.Channels["-1"].Mode != attention.ModeAll {
			t.Error("SessionConfig changed the operator's per-channel policy")
		}
	})
	t.Run("zero settings", func(t *testing.T) {
		c := SessionConfig(op, &replay.Header{Settings: replay.Settings{Interrupt: true}})
		if c.BotName != "" || c.Language != "" || c.History != planner.DefaultHistoryLimit || c.MaxIterations != scheduler.DefaultMaxIterations ||
			!c.Interrupt || c.SleepMax != actions.DefaultSleepMax || !c.SendUser || c.AllowChannels != nil {
			t.Errorf("config = %+v, want the runtime's defaults where the header is silent", c)
		}
		if c.Turn != scheduler.TurnContinue || c.Attention.Default.Mode != attention.ModeAll {
			t.Errorf("turn %q, mode %q: a header without them predates them", c.Turn, c.Attention.Default.Mode)
		}
	})
}
