package openai

import (
	"bytes"
	"strings"
	"testing"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/state"
)

func TestCompleteSendsImageParts(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Sequence(openaitest.Text(okAction)), openaitest.WithAPIKey(testKey))
	c, _ := newTestClient(t, testConfig(srv.URL()), nil)
	png := []byte("\x89PNG\r\n\x1a\nnot really")
	req := planner.Request{ChannelID: "c", Messages: []state.ChatMessage{
		{Role: "system", Content: "You are a test."},
		{Role: "user", Content: `Ada: "[photo] my cat"`, Images: []state.Image{{Mime: "image/png", Hash: "h", Data: png}}},
	}}
	if _, err := c.Complete(t.Context(), req); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	user := reqs[0].Messages[1]
	if user.Content != `Ada: "[photo] my cat"` {
		t.Errorf("text part = %q", user.Content)
	}
	if len(user.Images) != 1 || user.Images[0].Mime != "image/png" || !bytes.Equal(user.Images[0].Data, png) {
		t.Fatalf("images = %+v", user.Images)
	}
	if len(reqs[0].Messages[0].Images) != 0 || !strings.Contains(string(reqs[0].Raw), `"content":"You are a test."`) {
		t.Errorf("a message without images is not plain text: %s", reqs[0].Raw)
	}
}

func TestTranscribe(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Sequence(), openaitest.WithAPIKey(testKey),
		openaitest.WithTranscriber(func(tr openaitest.Transcription) (string, openaitest.Reply) {
			return " see you at " + string(tr.Audio) + " \n", openaitest.Reply{}
		}))
	cfg := testConfig(srv.URL())
	cfg.Model = "whisper-1"
	c, _ := newTestClient(t, cfg, nil)
	text, err := c.Transcribe(t.Context(), []byte("five"), "voice.ogg")
	if err != nil {
		t.Fatalf("Transcribe: %v", err)
	}
	if text != "see you at five" {
		t.Errorf("text = %q", text)
	}
	got := srv.Transcriptions()
	if len(got) != 1 || got[0].Model != "whisper-1" || got[0].FileName != "voice.ogg" || string(got[0].Audio) != "five" {
		t.Fatalf("transcriptions = %+v", got)
	}
	if _, err := c.Transcribe(t.Context(), nil, "empty.ogg"); err == nil {
		t.Error("empty audio was sent")
	}

	failing := openaitest.NewServer(t, openaitest.Sequence(), openaitest.WithAPIKey(testKey),
		openaitest.WithTranscriber(func(openaitest.Transcription) (string, openaitest.Reply) {
			return "", openaitest.Status(500, "")
		}))
	c2, _ := newTestClient(t, testConfig(failing.URL()), nil)
	_, err = c2.Transcribe(t.Context(), []byte("x"), "v.ogg")
	if err == nil || strings.Contains(err.Error(), testKey) {
		t.Errorf("failed transcription: err = %v", err)
	}
}
