package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner/openai/openaitest"
)

// TestRenamedPersonaAppliesToTheNextRequest renames the persona in
// PROMPTS_DIR while airi run runs: the next request calls the bot by the
// new name, and a message that names it wakes it in a group.
func TestRenamedPersonaAppliesToTheNextRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	if code, _, stderr := runCommand(t, nil, "prompt", "init", dir); code != exitOK {
		t.Fatalf("prompt init: exit %d: %s", code, stderr)
	}
	persona := filepath.Join(dir, "persona.md")
	text, err := os.ReadFile(persona)
	if err != nil || !strings.Contains(string(text), "\nname: Juni\n") {
		t.Fatalf("persona.md: %v\n%s", err, text)
	}

	tg := telegramtest.Start(telegramtest.Options{ReadAllGroupMessages: true})
	defer tg.Close()
	model := openaitest.NewServer(t, ackModel(telegramTexts(tg), nil))
	// The persona names the bot only when AIRI_BOT_NAME is empty.
	env := botEnv(model.URL(), dbIn(t), "TELEGRAM_BOT_TOKEN="+tg.Token(), "TELEGRAM_API_BASE_URL="+tg.URL(),
		"PROMPTS_DIR="+dir, "AIRI_BOT_NAME=", "AIRI_GROUP_MODE=addressed")
	bot := startBot(t, env)
	waitUntil(t, "the prompts are watched", bot, func() bool { return strings.Contains(bot.stderr.String(), "watching prompt templates") })

	ann := telegramtest.User{ID: 501, FirstName: "Ann"}
	tg.Post(telegramtest.Incoming{Chat: telegramtest.PrivateChat(ann), From: ann, Text: "hello tok-1"})
	waitUntil(t, "the first message is answered", bot, func() bool { return allAcked(ackCounts(telegramTexts(tg)()), 1) })
	if sys := systemOf(model.Requests()[0]); !strings.Contains(sys, "You are Juni.") {
		t.Fatalf("first request's system message does not name Juni:\n%s", sys)
	}

	if err := os.WriteFile(persona, []byte(strings.Replace(string(text), "\nname: Juni\n", "\nname: Mika\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the prompts are reloaded", bot, func() bool { return strings.Contains(bot.stderr.String(), "prompt templates reloaded") })

	// In a group that wakes the bot only when addressed, the new name
	// addresses it.
	group := telegramtest.Chat{ID: -1001234567890, Type: telegramtest.Supergroup, Title: "Harbour"}
	before := len(model.Requests())
	tg.Post(telegramtest.Incoming{Chat: group, From: ann, Text: "mika, what about tok-2?"})
	waitUntil(t, "the group message is answered", bot, func() bool { return allAcked(ackCounts(telegramTexts(tg)()), 2) })
	next := model.Requests()[before]
	if sys := systemOf(next); !strings.Contains(sys, "You are Mika.") || strings.Contains(sys, "Juni") {
		t.Errorf("the request after the rename does not call the bot Mika:\n%s", sys)
	}
	bot.stop(t)
	if _, err := tg.WaitSent(context.Background(), 0); err != nil {
		t.Error(err)
	}
}

// systemOf is the system message of a request.
func systemOf(r openaitest.Request) string {
	for _, m := range r.Messages {
		if m.Role == "system" {
			return m.Content
		}
	}
	return ""
}
