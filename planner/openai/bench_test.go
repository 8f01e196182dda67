package openai

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/state"
)

// benchRequest is a request of a realistic size: a system prompt of about
// 3,000 tokens, twenty history turns and a state message.
func benchRequest() planner.Request {
	msgs := []state.ChatMessage{{Role: "system", Content: strings.Repeat("You are a friendly character in a group chat. ", 300)}}
	for i := range 20 {
		if i%2 == 0 {
			msgs = append(msgs, state.ChatMessage{Role: "user", Content: "alice: " + strings.Repeat("how was your day? ", 10)})
		} else {
			msgs = append(msgs, state.ChatMessage{Role: "assistant", Content: `{"action":"send_message","channelId":"-100123","content":"great, thanks"}`})
		}
	}
	msgs = append(msgs, state.ChatMessage{Role: "user", Content: "Incoming messages:\nalice: and yours?\nAnswer with one JSON action."})
	return planner.Request{ChannelID: "-100123", User: "airi:-100123", Messages: msgs}
}

func benchServer(b *testing.B) *openaitest.Server {
	reply := openaitest.Reply{
		Content: `{"action":"send_message","channelId":"-100123","content":"fine, and you?"}`,
		Usage:   &openaitest.Usage{PromptTokens: 3500, CompletionTokens: 20, CachedTokens: 3000},
	}
	return openaitest.NewServer(b, func(context.Context, openaitest.Request) openaitest.Reply { return reply })
}

// BenchmarkComplete measures one call through the client (transport
// buffering, body merge, think split); compare with
// BenchmarkGoOpenAIDirect, the same call through go-openai alone.
func BenchmarkComplete(b *testing.B) {
	for _, tc := range []struct {
		name  string
		extra map[string]any
	}{
		{"plain", nil},
		{"extra_body", map[string]any{"chat_template_kwargs": map[string]any{"enable_thinking": false}, "top_k": 20}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			srv := benchServer(b)
			cfg := testConfig(srv.URL())
			cfg.ExtraBody = tc.extra
			c, err := New(cfg, nil)
			if err != nil {
				b.Fatal(err)
			}
			req := benchRequest()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Complete(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkGoOpenAIDirect(b *testing.B) {
	srv := benchServer(b)
	oc := goopenai.DefaultConfig(testKey)
	oc.BaseURL = srv.URL()
	api := goopenai.NewClientWithConfig(oc)
	req := benchRequest()
	msgs := make([]goopenai.ChatCompletionMessage, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = goopenai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
	}
	//lint:ignore SA1019 the request shape the client sends to non-reasoning models
	body := goopenai.ChatCompletionRequest{Model: "test-model", Messages: msgs, User: req.User, MaxTokens: 1024}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := api.CreateChatCompletion(context.Background(), body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMergeBody measures the body merge of one request of
// benchRequest's size; BenchmarkComplete/extra_body shows its share of a
// whole call.
func BenchmarkMergeBody(b *testing.B) {
	raw, _ := json.Marshal(map[string]any{"model": "m", "messages": benchRequest().Messages, "max_tokens": 1024})
	merge, _ := encodeMerge(map[string]any{"chat_template_kwargs": map[string]any{"enable_thinking": false}, "max_tokens": nil})
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := mergeBody(raw, merge); err != nil {
			b.Fatal(err)
		}
	}
}
