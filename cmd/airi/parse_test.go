package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func runParse(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	code = a.run(context.Background(), append([]string{"parse"}, args...))
	return code, out.String(), errb.String()
}

func TestCmdParseOne(t *testing.T) {
	tests := []struct {
		name, in   string
		code       int
		out, inErr string
	}{
		{name: "flat", in: `{"action":"send_message","channelId":"42","content":"hi"}`, code: exitOK,
			out: `{"action":{"action":"send_message","channelId":"42","content":"hi"}}` + "\n"},
		{name: "reasoning and notes", in: "<think>quiet</think>\n[{\"action\":\"sleep\",\"duration\":\"30s\"},{\"action\":\"continue\"}]", code: exitOK,
			out: `{"action":{"action":"sleep","duration":30000},"reasoning":"quiet","notes":["1 more action ignored"]}` + "\n"},
		{name: "big id", in: `{"action":"read_unread_messages","channelId":123456789012345678901}`, code: exitOK,
			out: `{"action":{"action":"read_unread_messages","channelId":"123456789012345678901"}}` + "\n"},
		{name: "refusal", in: "just prose", code: exitFailure, inErr: "no action found"},
		{name: "unknown", in: `{"action":"fly"}`, code: exitFailure, inErr: "known actions are"},
		// A message the end of the answer cut off is refused, never kept
		// as far as it goes.
		{name: "cut content", in: `{"action":"send_message","channelId":"42","content":"So the thing about distributed systems is that every`,
			code: exitFailure, inErr: "cut off in the middle of \"content\""},
		{name: "cut number", in: `{"action":"sleep","duration":30`, code: exitFailure, inErr: "cut off inside \"duration\""},
		{name: "missing closing brace kept", in: `{"action":"send_message","channelId":"42","content":"done"`, code: exitOK,
			out: `{"action":{"action":"send_message","channelId":"42","content":"done"},"notes":["answer was truncated"]}` + "\n"},
		{name: "placeholder", in: `{"action":"send_message","channelId":"<id>","content":"hi"}`, code: exitFailure, inErr: "placeholder"},
		{name: "huge sleep capped", in: `{"action":"sleep","duration":9223372036854775807}`, code: exitOK,
			out: `{"action":{"action":"sleep","duration":9223372036854},"notes":["sleep.duration of 9223372036854775807 is longer than any duration can be; capped to 9223372036854 ms"]}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runParse(t, tt.in)
			if code != tt.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tt.code, errOut)
			}
			if out != tt.out {
				t.Errorf("stdout %q, want %q", out, tt.out)
			}
			if tt.inErr != "" && !strings.Contains(errOut, tt.inErr) {
				t.Errorf("stderr %q lacks %q", errOut, tt.inErr)
			}
		})
	}
}

func TestCmdParseUsage(t *testing.T) {
	if code, _, _ := runParse(t, "", "--nope"); code != exitUsage {
		t.Fatalf("unknown flag: exit %d, want %d", code, exitUsage)
	}
	if code, _, _ := runParse(t, "", "extra"); code != exitUsage {
		t.Fatalf("extra argument: exit %d, want %d", code, exitUsage)
	}
}

func TestCmdParseJSONL(t *testing.T) {
	lines := []string{
		`{"raw":"{\"action\":\"continue\"}"}`,
		`not json`,
		`{"raw": 5}`,
		`{"other":"x"}`,
		`["raw"]`,
		`{"raw":"hello"}`,
		`{"id": 7, "raw":"{\"action\":\"send_message\",\"channelId\":\"1\",\"content\":\"a\\u00e9\\n<b>&\"}", "meta": {"x": [1, 2.5e3, true, null]}}`,
		`{"raw":"{\"action\":\"sleep\",\"duration\":\"2m\"}"}` + "\r",
		``,
		`{"raw":"x"} trailing`,
		`{"raw":"{\"action\":\"send_message\",\"channelId\":\"1\",\"content\":\"cut off mid"}`,
	}
	want := []string{
		`{"action":{"action":"continue"}}`,
		`error`,
		`error`,
		`error`,
		`error`,
		`error`,
		`{"action":{"action":"send_message","channelId":"1","content":"aé\n\u003cb\u003e\u0026"}}`,
		`{"action":{"action":"sleep","duration":120000}}`,
		`error`,
		`error`,
		`error`,
	}
	code, out, errOut := runParse(t, strings.Join(lines, "\n")+"\n", "--jsonl")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("%d output lines for %d input lines:\n%s", len(got), len(want), out)
	}
	for i := range want {
		if want[i] == "error" {
			var e struct {
				Error *string `json:"error"`
			}
			if err := json.Unmarshal([]byte(got[i]), &e); err != nil || e.Error == nil || *e.Error == "" {
				t.Errorf("line %d = %s, want an error object", i+1, got[i])
			}
			continue
		}
		if got[i] != want[i] {
			t.Errorf("line %d = %s, want %s", i+1, got[i], want[i])
		}
	}
}

// TestCmdParseJSONLOrder runs many lines of different cost through the
// parallel pipeline and checks that every output line belongs to its input
// line, in order, and matches the single-answer result.

func TestCmdParseFinish(t *testing.T) {
	bare := `"action": "sleep", "duration": 30000`
	tests := []struct {
		name  string
		in    string
		args  []string
		code  int
		out   string
		inErr string
	}{
		{name: "stop closes the end", in: bare, args: []string{"--finish", "stop"}, code: exitOK, out: `"duration":30000`},
		{name: "length refuses the cut", in: bare, args: []string{"--finish", "length"}, code: exitFailure, inErr: `cut off inside "duration"`},
		{name: "unknown finish", in: bare, args: []string{"--finish", "eof"}, code: exitUsage, inErr: "want stop or length"},
		{name: "line finish beats the flag", in: `{"raw":"\"action\": \"sleep\", \"duration\": 30000","finish":"stop"}` + "\n",
			args: []string{"--jsonl", "--finish", "length"}, code: exitOK, out: `"duration":30000`},
		{name: "flag for lines without finish", in: `{"raw":"\"action\": \"sleep\", \"duration\": 30000"}` + "\n",
			args: []string{"--jsonl", "--finish", "length"}, code: exitOK, out: `{"error":"the answer was cut off inside`},
		{name: "partial key dropped", in: `{"action":"sleep","duration":30000,"reas`, args: []string{"--finish", "length"}, code: exitOK, out: `partial key \"reas\"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runParse(t, tt.in, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tt.code, errs)
			}
			if !strings.Contains(out, tt.out) {
				t.Errorf("stdout %q lacks %q", out, tt.out)
			}
			if !strings.Contains(errs, tt.inErr) {
				t.Errorf("stderr %q lacks %q", errs, tt.inErr)
			}
		})
	}
}
