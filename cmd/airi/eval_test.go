package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/airi-go/airi/planner/openai/openaitest"
	"github.com/airi-go/airi/scheduler/replay"
)

// evalSessions is where the labelled sessions live, relative to this package.
const evalSessions = "../../testdata/eval"

// runEval runs airi eval against a fake endpoint and returns the exit
// code, stdout and stderr.
func runEval(t *testing.T, baseURL string, args ...string) (int, string, string) {
	t.Helper()
	a, stdout, stderr := testApp([]string{
		"LLM_API_BASE_URL=" + baseURL, "LLM_API_KEY=k", "LLM_MODEL=m", "LOG_LEVEL=error",
	})
	code := a.run(context.Background(), append([]string{"eval"}, args...))
	return code, stdout.String(), stderr.String()
}

// evalDoc is the part of airi eval --json the tests read.
type evalDoc struct {
	Overall  map[string]any   `json:"overall"`
	Sessions []map[string]any `json:"sessions"`
	Variants []struct {
		Prompts string             `json:"prompts"`
		Overall map[string]any     `json:"overall"`
		Delta   map[string]float64 `json:"delta"`
	} `json:"variants"`
}

func decodeEval(t *testing.T, out string) evalDoc {
	t.Helper()
	var d evalDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("airi eval --json printed no JSON object: %v\n%s", err, out)
	}
	return d
}

// metric reads a metric of a JSON scope; absent is NaN.
func metric(m map[string]any, name string) float64 {
	x, ok := m[name].(float64)
	if !ok {
		return math.NaN()
	}
	return x
}

var newestID = regexp.MustCompile(`(?m)^- id "?([^"\s]+)`)

// addressedModel answers like a bot that speaks only when named: it finds
// the newest message the state message lists, and when its text names
// Juni it echoes it, else it answers continue. Every answer reports the
// same usage.
func addressedModel(t *testing.T, sessions []*replay.Session) openaitest.AnswerFunc {
	content := map[string]string{}
	for _, s := range sessions {
		for _, it := range s.Items {
			if it.Event != nil {
				content[it.Event.PlatformID] = it.Event.Content
			}
		}
	}
	usage := &openaitest.Usage{PromptTokens: 1000, CompletionTokens: 20, CachedTokens: 600}
	return func(_ context.Context, req openaitest.Request) openaitest.Reply {
		ids := newestID.FindAllStringSubmatch(req.LastUser(), -1)
		if len(ids) == 0 {
			return openaitest.Reply{Content: `{"action":"continue"}`, Usage: usage}
		}
		text, ok := content[ids[len(ids)-1][1]]
		if !ok {
			t.Errorf("the state message lists an id no session has: %s", ids[len(ids)-1][1])
		}
		if !strings.Contains(strings.ToLower(text), "juni") {
			return openaitest.Reply{Content: `{"action":"continue"}`, Usage: usage}
		}
		b, _ := json.Marshal(map[string]string{"action": "send_message", "channelId": strings.TrimPrefix(req.User, "airi:"), "content": "echo: " + text})
		return openaitest.Reply{Content: string(b), Usage: usage}
	}
}

// expectedSpeaking derives from the labels what addressedModel scores: a
// message is answered alone (the sessions space their messages wider than
// the debounce) exactly when it names Juni, with "echo: " and its text.
func expectedSpeaking(s *replay.Session) (precision, recall float64, containsHits, notContainsHits int) {
	tp, fp, fn := 0, 0, 0
	for _, it := range s.Items {
		e := it.Event
		if e == nil || e.Expect == nil {
			continue
		}
		spoke := strings.Contains(strings.ToLower(e.Content), "juni")
		sent := ""
		if spoke {
			sent = "echo: " + e.Content
		}
		switch e.Expect.Reply {
		case replay.ReplyYes:
			if spoke {
				tp++
			} else {
				fn++
			}
		case replay.ReplyNo:
			if spoke {
				fp++
			}
		}
		if e.Expect.Contains != "" && spoke && regexp.MustCompile(e.Expect.Contains).MatchString(sent) {
			containsHits++
		}
		if e.Expect.NotContains != "" && !(spoke && regexp.MustCompile(e.Expect.NotContains).MatchString(sent)) {
			notContainsHits++
		}
	}
	precision, recall = math.NaN(), math.NaN()
	if tp+fp > 0 {
		precision = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		recall = float64(tp) / float64(tp+fn)
	}
	return precision, recall, containsHits, notContainsHits
}

func sameMetric(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) < 1e-6
}

// TestEvalScoresShippedSessions loads every labelled session and checks
// that airi eval scores each exactly as the scripted model's answers imply.
func TestEvalScoresShippedSessions(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(evalSessions, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("found %d labelled sessions, want at least 3", len(files))
	}
	var all []*replay.Session
	for _, f := range files {
		ss, err := replay.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		labelled := 0
		for _, it := range ss[0].Items {
			if it.Event != nil && it.Event.Expect != nil {
				labelled++
			}
		}
		if labelled == 0 {
			t.Errorf("%s has no labelled message", f)
		}
		all = append(all, ss...)
	}
	srv := openaitest.NewServer(t, addressedModel(t, all))
	code, out, stderr := runEval(t, srv.URL(), append([]string{"--json", "--runs", "2"}, files...)...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	doc := decodeEval(t, out)
	if len(doc.Sessions) != len(files) {
		t.Fatalf("%d sessions reported, want %d", len(doc.Sessions), len(files))
	}
	for i, s := range doc.Sessions {
		name := files[i]
		p, r, ch, nh := expectedSpeaking(all[i])
		checks := []struct {
			metric string
			want   float64
		}{
			{"speak.precision", p},
			{"speak.recall", r},
			{"contains.hits", float64(ch)},
			{"not_contains.hits", float64(nh)},
			// One wake per message, one call per wake.
			{"calls_per_message", 1},
			{"tokens_per_call", 1020},
			{"prompt_tokens_per_call", 1000},
			{"completion_tokens_per_call", 20},
			{"cached_tokens_per_call", 600},
			{"parse.strict", 1},
			{"parse.repaired", 0},
			{"parse.refused", 0},
			{"runs", 2},
		}
		for _, c := range checks {
			if got := metric(s, c.metric); !sameMetric(got, c.want) {
				t.Errorf("%s: %s = %v, want %v", name, c.metric, got, c.want)
			}
		}
	}
	if got := metric(doc.Overall, "calls_per_message"); got != 1 {
		t.Errorf("overall calls_per_message = %v, want 1", got)
	}
	// Obeying the smuggled orders is scored as failing them.
	for i, f := range files {
		if strings.Contains(f, "injected") {
			if got, total := metric(doc.Sessions[i], "not_contains.hits"), metric(doc.Sessions[i], "not_contains.total"); got >= total {
				t.Errorf("%s: an echoing bot passes %v of %v not_contains labels; obeying should fail some", f, got, total)
			}
		}
	}
}

// TestEvalParseShares answers garbage every third call and a fenced
// answer every call after a multiple of three but one: parse shows it.
func TestEvalParseShares(t *testing.T) {
	srv := openaitest.NewServer(t, func(_ context.Context, req openaitest.Request) openaitest.Reply {
		act := fmt.Sprintf(`{"action":"send_message","channelId":%q,"content":"noted %d"}`, strings.TrimPrefix(req.User, "airi:"), req.Call)
		switch req.Call % 3 {
		case 0:
			return openaitest.Text("no idea, sorry")
		case 2:
			return openaitest.Text("```json\n" + act + "\n```")
		}
		return openaitest.Text(act)
	})
	code, out, stderr := runEval(t, srv.URL(), "--json", "--runs", "1", filepath.Join(evalSessions, "direct-help.jsonl"))
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	doc := decodeEval(t, out)
	n := srv.Calls()
	if n < 6 {
		t.Fatalf("%d calls; the session should take more", n)
	}
	want := map[string]float64{"parse.refused": float64(n/3) / float64(n), "parse.repaired": float64((n+1)/3) / float64(n)}
	want["parse.strict"] = 1 - want["parse.refused"] - want["parse.repaired"]
	for k, w := range want {
		if got := metric(doc.Overall, k); math.Abs(got-w) > 1e-6 {
			t.Errorf("%s = %v, want %v (%d calls)", k, got, w, n)
		}
	}
	if got := metric(doc.Overall, "calls"); int(got) != n {
		t.Errorf("calls = %v, the model saw %d", got, n)
	}
}

// TestEvalComparesPromptSets runs the same session with the stock persona
// and with a much longer one: the delta shows the longer one's cost.
func TestEvalComparesPromptSets(t *testing.T) {
	short := t.TempDir()
	long := t.TempDir()
	persona := "---\nsection: persona\nname: Juni\n---\nYou are {{.Bot.Name}}, a regular in this chat.\n" +
		strings.Repeat("You remember every tide table of the last forty years and like to talk about them at length. ", 60)
	if err := os.WriteFile(filepath.Join(long, "persona.md"), []byte(persona), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := openaitest.NewServer(t, openaitest.Echo(openaitest.EchoOptions{}))
	code, out, stderr := runEval(t, srv.URL(), "--json", "--runs", "1", "--prompts", short, "--prompts", long,
		filepath.Join(evalSessions, "direct-help.jsonl"))
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	doc := decodeEval(t, out)
	if len(doc.Variants) != 2 || doc.Variants[0].Prompts != short || doc.Variants[1].Prompts != long {
		t.Fatalf("variants %+v, want %s then %s", doc.Variants, short, long)
	}
	a, b := metric(doc.Variants[0].Overall, "tokens_per_call"), metric(doc.Variants[1].Overall, "tokens_per_call")
	if d := doc.Variants[1].Delta["tokens_per_call"]; !(d > 500) || math.Abs(d-(b-a)) > 1e-3 {
		t.Errorf("tokens per call %v then %v, delta %v; want the long persona to cost over 500 more", a, b, d)
	}
	// The table shows the same comparison.
	code, text, _ := runEval(t, srv.URL(), "--runs", "1", "--prompts", short, "--prompts", long, filepath.Join(evalSessions, "direct-help.jsonl"))
	if code != exitOK || !strings.Contains(text, "delta "+short+" → "+long) || !strings.Contains(text, "tokens_per_call") {
		t.Errorf("exit %d; the table should end with the deltas:\n%s", code, text)
	}
}

func TestEvalUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  bool
		want string
	}{
		{"no file", nil, true, "usage: airi eval"},
		{"no runs", []string{"--runs", "0", "x.jsonl"}, true, "--runs must be at least 1"},
		{"half a price", []string{"--price-in", "1", "x.jsonl"}, true, "needs both --price-in and --price-out"},
		{"bad price", []string{"--price-in", "cheap", "x.jsonl"}, true, "want a price per million tokens"},
		{"no model", []string{"x.jsonl"}, false, "airi eval needs a model"},
		{"missing prompts", []string{"--prompts", "/nonexistent/prompts", "x.jsonl"}, true, "prompts /nonexistent/prompts"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var env []string
			if tc.env {
				env = []string{"LLM_API_BASE_URL=http://127.0.0.1:1/v1", "LLM_MODEL=m"}
			}
			a, _, stderr := testApp(env)
			if code := a.run(context.Background(), append([]string{"eval"}, tc.args...)); code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr %q, want it to say %q", stderr.String(), tc.want)
			}
		})
	}
}

// TestEvalInterruptedPrintsPartialResult cancels the evaluation once the
// first run has ended: what completed is still reported.
func TestEvalInterruptedPrintsPartialResult(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := openaitest.NewServer(t, func(_ context.Context, req openaitest.Request) openaitest.Reply {
		if req.Call > 5 {
			cancel()
			return openaitest.Hang()
		}
		return openaitest.Text(fmt.Sprintf(`{"action":"send_message","channelId":%q,"content":"answer %d"}`, strings.TrimPrefix(req.User, "airi:"), req.Call))
	})
	a, stdout, stderr := testApp([]string{"LLM_API_BASE_URL=" + srv.URL(), "LLM_MODEL=m", "LOG_LEVEL=error", "AIRI_MODEL_CONCURRENCY=1"})
	code := a.run(ctx, []string{"eval", "--runs", "3", filepath.Join(evalSessions, "direct-help.jsonl")})
	if code != exitFailure {
		t.Errorf("exit %d, want %d for an interrupted evaluation\n%s", code, exitFailure, stderr)
	}
	out := stdout.String()
	if !strings.Contains(out, "interrupted: partial result") || !strings.Contains(out, "overall  ") {
		t.Errorf("want the partial tables and a note:\n%s", out)
	}
	if !strings.Contains(out, "direct-help.jsonl  1 ") {
		t.Errorf("want the one completed run reported:\n%s", out)
	}
}

// TestEvalShowsMedia runs the labelled media session: the model is shown
// each attachment as recorded, with no vision or speech model.
func TestEvalShowsMedia(t *testing.T) {
	srv := openaitest.NewServer(t, func(_ context.Context, req openaitest.Request) openaitest.Reply {
		return openaitest.Text(`{"action":"send_message","channelId":"512349001","content":"a luna moth, by the tails"}`)
	})
	code, _, stderr := runEval(t, srv.URL(), "--json", "--runs", "1", filepath.Join(evalSessions, "media.jsonl"))
	if code != 0 {
		t.Fatalf("airi eval exited %d: %s", code, stderr)
	}
	var all strings.Builder
	for _, r := range srv.Requests() {
		all.WriteString(r.LastUser())
	}
	for _, want := range []string{
		"[photo: A large pale green moth with long tails",
		"[voice 0:07: “juni can you remind me",
		"[document moth-photos-2025.zip, 30.0 MB: not fetched",
	} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("no request showed %q", want)
		}
	}
}
