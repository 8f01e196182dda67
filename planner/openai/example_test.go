package openai_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/openai"
	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/state"
)

func Example() {
	// A fake endpoint that rate-limits once, then answers.
	fake := openaitest.NewHandler(openaitest.Sequence(
		openaitest.Status(429, "0"),
		openaitest.Text(`<think>they said hi</think>{"action":"continue"}`),
	))
	srv := httptest.NewServer(fake)
	defer srv.Close()
	defer fake.Close()

	client, err := openai.New(openai.Config{
		BaseURL:    srv.URL + "/v1", // LLM_API_BASE_URL
		APIKey:     "sk-example",
		Model:      "any-model",
		JSONMode:   openai.JSONModeObject,
		MinBackoff: time.Millisecond,
	}, zap.NewNop())
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := client.Complete(context.Background(), planner.Request{
		ChannelID: "console",
		User:      "airi:console",
		Messages:  []state.ChatMessage{{Role: "system", Content: "..."}, {Role: "user", Content: "you: hi"}},
	})
	if err != nil {
		fmt.Println(openai.Class(err), err)
		return
	}
	fmt.Println(resp.Content)
	fmt.Println(resp.Reasoning)
	fmt.Println(resp.Attempts, "attempts;", fake.Requests()[1].User, string(fake.Requests()[1].ResponseFormat))
	// Output:
	// <think>they said hi</think>{"action":"continue"}
	// they said hi
	// 2 attempts; airi:console {"type":"json_object"}
}
