package openaitest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"
)

func post(t *testing.T, url, body string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

const chatBody = `{"model":"m","messages":[{"role":"system","content":"sys"},{"role":"user","content":[{"type":"text","text":"hel"},{"type":"text","text":"lo"}]}],"user":"airi:7","response_format":{"type":"json_object"},"temperature":0,"top_k":3}`

func TestServerSpeaksChatCompletions(t *testing.T) {
	srv := NewServer(t, Sequence(Reply{Content: `{"action":"continue"}`, ReasoningContent: "r"}))
	// go-openai decodes the answer: the JSON is the real shape.
	oc := goopenai.DefaultConfig("k")
	oc.BaseURL = srv.URL()
	resp, err := goopenai.NewClientWithConfig(oc).CreateChatCompletion(t.Context(), goopenai.ChatCompletionRequest{
		Model:    "m",
		Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "hi"}},
	})
	if err != nil {
		t.Fatalf("CreateChatCompletion: %v", err)
	}
	if len(resp.Choices) != 1 || resp.Choices[0].Message.Content != `{"action":"continue"}` ||
		resp.Choices[0].Message.ReasoningContent != "r" || resp.Choices[0].FinishReason != "stop" {
		t.Errorf("response = %+v", resp)
	}
	if resp.Usage.PromptTokens == 0 || resp.Usage.CompletionTokens == 0 || resp.Usage.PromptTokensDetails == nil {
		t.Errorf("usage = %+v, want estimated tokens", resp.Usage)
	}
}

func TestServerRecordsRequests(t *testing.T) {
	srv := NewServer(t, Sequence(Text("ok")))
	resp, _ := post(t, srv.URL()+"/chat/completions", chatBody, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Call != 1 || r.Model != "m" || r.User != "airi:7" || r.LastUser() != "hello" {
		t.Errorf("request = %+v", r)
	}
	if string(r.ResponseFormat) != `{"type":"json_object"}` || r.Temperature == nil || *r.Temperature != 0 {
		t.Errorf("response_format %s, temperature %v", r.ResponseFormat, r.Temperature)
	}
	if !r.Has("top_k") || r.Has("max_tokens") {
		t.Errorf("extra fields not recorded as sent: %v", r.Body)
	}
}

func TestServerFaults(t *testing.T) {
	tests := []struct {
		name       string
		reply      Reply
		wantStatus int
		wantHeader string
		check      func(t *testing.T, body []byte)
	}{
		{"429", Status(429, "3"), 429, "3", func(t *testing.T, body []byte) {
			if msg := errorMessage(body); msg == "" {
				t.Errorf("body %s is not an OpenAI error", body)
			}
		}},
		{"custom body", Reply{Status: 502, Body: "bad gateway"}, 502, "", func(t *testing.T, body []byte) {
			if string(body) != "bad gateway" {
				t.Errorf("body = %q", body)
			}
		}},
		{"malformed", Malformed(), 200, "", func(t *testing.T, body []byte) {
			if json.Valid(body) {
				t.Errorf("malformed body is valid JSON: %s", body)
			}
		}},
		{"prose", FaultReply(FaultProse, ""), 200, "", func(t *testing.T, body []byte) {
			var r struct {
				Choices []struct{ Message struct{ Content string } }
			}
			if err := json.Unmarshal(body, &r); err != nil || len(r.Choices) != 1 || strings.Contains(r.Choices[0].Message.Content, "{") {
				t.Errorf("prose reply = %s", body)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(t, Sequence(tt.reply))
			resp, body := post(t, srv.URL()+"/chat/completions", chatBody, nil)
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status = %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			if got := resp.Header.Get("Retry-After"); got != tt.wantHeader {
				t.Errorf("Retry-After = %q, want %q", got, tt.wantHeader)
			}
			tt.check(t, body)
		})
	}
}

func errorMessage(body []byte) string {
	var e struct {
		Error struct{ Message string } `json:"error"`
	}
	json.Unmarshal(body, &e)
	return e.Error.Message
}

func TestServerHangUntilClientGivesUp(t *testing.T) {
	arrived := make(chan struct{})
	srv := NewServer(t, func(context.Context, Request) Reply {
		close(arrived)
		return Hang()
	})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-arrived
		cancel()
	}()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"/chat/completions", strings.NewReader(chatBody))
	_, err := http.DefaultClient.Do(req)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the client's cancellation", err)
	}
}

func TestServerCloseReleasesHang(t *testing.T) {
	arrived := make(chan struct{})
	srv := NewServer(t, func(context.Context, Request) Reply {
		close(arrived)
		return Hang()
	})
	done := make(chan int, 1)
	go func() {
		resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(chatBody))
		if err != nil {
			done <- -1
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	<-arrived
	srv.Close()
	if code := <-done; code != http.StatusServiceUnavailable && code != -1 {
		t.Errorf("status = %d, want 503 or a closed connection", code)
	}
}

func TestServerRejects(t *testing.T) {
	tests := []struct {
		name     string
		opts     []Option
		path     string
		body     string
		header   map[string]string
		want     int
		wantText string
	}{
		{"unknown path", nil, "/v1/completions", chatBody, nil, 404, "Invalid URL"},
		{"bad json", nil, "/v1/chat/completions", `{"model":`, nil, 400, "parse"},
		{"no messages", nil, "/v1/chat/completions", `{"model":"m","messages":[]}`, nil, 400, "required"},
		{"wrong key", []Option{WithAPIKey("right-key-123")}, "/v1/chat/completions", chatBody,
			map[string]string{"Authorization": "Bearer wrong-key-456"}, 401, "wrong-key-456"},
		{"unknown model", []Option{WithModels("gpt-x")}, "/v1/chat/completions", chatBody, nil, 404, "does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(t, Sequence(Text("ok")), tt.opts...)
			base := strings.TrimSuffix(srv.URL(), "/v1")
			resp, body := post(t, base+tt.path, tt.body, tt.header)
			if resp.StatusCode != tt.want {
				t.Errorf("status = %d, want %d (%s)", resp.StatusCode, tt.want, body)
			}
			if !strings.Contains(errorMessage(body), tt.wantText) {
				t.Errorf("message %q does not contain %q", errorMessage(body), tt.wantText)
			}
		})
	}
}

func TestSequence(t *testing.T) {
	seq := Sequence(Text("a"), Text("b"))
	var got []string
	for i := 1; i <= 4; i++ {
		got = append(got, seq(t.Context(), Request{Call: i}).Content)
	}
	if strings.Join(got, "") != "abbb" {
		t.Errorf("Sequence gave %v", got)
	}
}

func TestEstimatedCachedTokens(t *testing.T) {
	srv := NewServer(t, Sequence(Text("ok")))
	oc := goopenai.DefaultConfig("k")
	oc.BaseURL = srv.URL()
	api := goopenai.NewClientWithConfig(oc)
	sys := goopenai.ChatCompletionMessage{Role: "system", Content: strings.Repeat("stable prefix ", 100)}
	var cached []int
	for _, last := range []string{"first", "second"} {
		resp, err := api.CreateChatCompletion(t.Context(), goopenai.ChatCompletionRequest{
			Model: "m", User: "airi:1",
			Messages: []goopenai.ChatCompletionMessage{sys, {Role: "user", Content: last}},
		})
		if err != nil {
			t.Fatal(err)
		}
		cached = append(cached, resp.Usage.PromptTokensDetails.CachedTokens)
	}
	if cached[0] != 0 || cached[1] < 300 {
		t.Errorf("cached tokens = %v, want 0 then the shared prefix", cached)
	}
}

func TestHandlerStandalone(t *testing.T) {
	// The handler serves without httptest.Server, as cmd/fakemodel runs it.
	h := NewHandler(Sequence(Text("ok")))
	defer h.Close()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/api/v1/chat/completions", strings.NewReader(chatBody))
	h.ServeHTTP(rec, req)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"content":"ok"`) {
		t.Errorf("code %d body %s", rec.Code, rec.Body.String())
	}
	if h.Calls() != 1 {
		t.Errorf("Calls = %d", h.Calls())
	}
}
