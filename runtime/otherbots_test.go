package runtime_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/runtime"
)

// TestOtherBotsAnswersShown: a person asks ours and another bot at once;
// when the other bot's answer arrives during the debounce, the request of
// ours shows it under the person's message, and the group section says
// not to repeat it. When no other bot answered, there is no such line.
func TestOtherBotsAnswersShown(t *testing.T) {
	const line = "Already answered by other bots:"
	tests := []struct {
		name   string
		answer string // the other bot's answer, "" for none
		want   string // in the state message, "" for no line
	}{
		{"other bot answered", "the pier at half past one", line + ` Echo: "the pier at half past one"`},
		{"nobody answered", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tg := telegramtest.NewServer(telegramtest.Options{ReadAllGroupMessages: true})
				var (
					mu     sync.Mutex
					states []string
					system string
				)
				model := func(_ context.Context, req openaitest.Request) openaitest.Reply {
					mu.Lock()
					defer mu.Unlock()
					states = append(states, req.LastUser())
					system = req.Messages[0].Content
					return openaitest.Reply{Content: `{"action":"continue"}`}
				}
				b := startGroupBot(t, tg, openaitest.NewHandler(model), filepath.Join(t.TempDir(), "airi.db"), func(c *runtime.Config) {
					c.Attention.Default.IgnoreBots = false
				})
				defer b.stop(t)
				ada := telegramtest.User{ID: 701, FirstName: "Ada"}
				echo := telegramtest.User{ID: 909, IsBot: true, FirstName: "Echo", Username: "echo_bot"}
				asked := tg.Post(telegramtest.Incoming{Chat: busyGroup, From: ada, Text: "@" + tg.Bot().Username + " @echo_bot where do we meet?"})
				if tt.answer != "" {
					// Within the debounce of ours.
					time.Sleep(300 * time.Millisecond)
					tg.Post(telegramtest.Incoming{Chat: busyGroup, From: echo, Text: tt.answer, ReplyTo: asked.MessageID})
				}
				time.Sleep(10 * time.Second)
				synctest.Wait()

				mu.Lock()
				defer mu.Unlock()
				if len(states) == 0 {
					t.Fatal("no model call")
				}
				first := states[0]
				ask := fmt.Sprintf(`- id %d `, asked.MessageID)
				if !strings.Contains(first, ask) {
					t.Fatalf("the first request does not show the question:\n%s", first)
				}
				if tt.want == "" {
					if strings.Contains(first, line) {
						t.Errorf("a line of other bots' answers although none answered:\n%s", first)
					}
				} else if _, after, _ := strings.Cut(first, ask); !strings.Contains(after, "\n  "+tt.want+"\n") {
					t.Errorf("the question lacks the line %q under it:\n%s", tt.want, first)
				}
				if !strings.Contains(system, "Skip what other bots answered.") {
					t.Errorf("the group section does not say not to repeat other bots:\n%s", system)
				}
			})
		})
	}
}
