package eval_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/internal/tokens"
	"github.com/airi-go/airi/scheduler/eval"
	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/state"
)

// TestWriteHTMLSummaryTable checks that the report's summary is a table
// with one cell per metric, not preformatted terminal text, and that a
// second prompt set gets its deltas as a table too.
func TestWriteHTMLSummaryTable(t *testing.T) {
	t0 := time.Date(2026, 4, 2, 21, 0, 0, 0, time.UTC)
	s := &replay.Session{
		Header: replay.Header{Channel: state.Channel{ID: "c", Platform: "console"}, Platform: "console", Turn: "send-ends"},
		Items: []replay.Item{
			{Event: &replay.Event{Time: t0, Sender: "ana", Content: "Juni, tea?", Expect: &replay.Expect{Reply: replay.ReplyYes, Contains: "strong"}}},
		},
	}
	play := func() *eval.Run {
		t.Helper()
		model := &scripted{answers: []string{`{"action":"send_message","channelId":"c","content":"strong, no sugar"}`}}
		run, err := eval.Play(context.Background(), s, opener(model), eval.Options{TickInterval: time.Minute, Tail: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		return run
	}
	in, out := 1.0, 4.0
	res := &eval.Result{Runs: 1, Prices: eval.Prices{In: &in, Out: &out}}
	for _, dir := range []string{"", "<b>new</b>"} {
		res.Variants = append(res.Variants, &eval.Variant{Prompts: dir, Sessions: []*eval.SessionResult{
			{Name: "tea.jsonl", Session: s, Runs: []*eval.Run{play()}},
		}})
	}
	var b strings.Builder
	if err := res.WriteHTML(&b, tokens.New()); err != nil {
		t.Fatal(err)
	}
	page := b.String()

	if strings.Contains(page, `id="summary"`) {
		t.Error("the summary is still preformatted text")
	}
	if n := strings.Count(page, `<table class="scores">`); n != 2 {
		t.Errorf("%d score tables, want one per prompt set", n)
	}
	// The overall row of the first set: 100 prompt and 10 completion
	// tokens a call at 1 and 4 per million, one call, 2 s of latency.
	overall := regexp.MustCompile(`(?s)<tr class="overall">.*?</tr>`).FindString(page)
	for metric, want := range map[string]string{
		eval.MSpeakPrecision: "1.00",
		eval.MSpeakRecall:    "1.00",
		eval.MLatencyP50:     "2000",
		eval.MCost:           "0.0001",
		"contains":           "1/1",
	} {
		cell := `<td data-metric="` + metric + `">` + want + `</td>`
		if !strings.Contains(overall, cell) {
			t.Errorf("the overall row lacks %s; row:\n%s", cell, overall)
		}
	}
	for _, title := range []string{"precision", "recall", "p50", "cost"} {
		if !strings.Contains(page, ">"+title+"</th>") {
			t.Errorf("no column headed %q", title)
		}
	}
	if !strings.Contains(page, `<table class="delta">`) {
		t.Error("the second prompt set has no delta table")
	}
	if strings.Contains(page, "<b>new</b>") || !strings.Contains(page, "&lt;b&gt;new&lt;/b&gt;") {
		t.Error("a prompt directory's name is not escaped")
	}
}
