package jsonl

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"runtime"
	"testing"

	"github.com/airi-go/airi/actions"
)

// benchInput is the parser corpus as `airi parse --jsonl` input lines,
// repeated to n lines (the input scripts/bench-parse/run.sh times).
func benchInput(tb testing.TB, n int) []byte {
	tb.Helper()
	f, err := os.ReadFile("../../testdata/parse/corpus.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	var lines [][]byte
	sc := bufio.NewScanner(bytes.NewReader(f))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c struct {
			Raw string `json:"raw"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			tb.Fatal(err)
		}
		line, err := json.Marshal(map[string]string{"raw": c.Raw})
		if err != nil {
			tb.Fatal(err)
		}
		lines = append(lines, line)
	}
	var in bytes.Buffer
	for i := range n {
		in.Write(lines[i%len(lines)])
		in.WriteByte('\n')
	}
	return in.Bytes()
}

// plainLine is parseLine written with encoding/json alone: decode the
// line into a struct, encode the result struct.
func plainLine(lp *Pipeline) func(dst, line []byte) []byte {
	type result struct {
		Action    actions.Action `json:"action"`
		Reasoning string         `json:"reasoning,omitempty"`
		Notes     []string       `json:"notes,omitempty"`
	}
	fail := func(dst []byte, msg string) []byte {
		b, _ := json.Marshal(map[string]string{"error": msg})
		return append(append(dst, b...), '\n')
	}
	return func(dst, line []byte) []byte {
		var in struct {
			Raw *string `json:"raw"`
		}
		if err := json.Unmarshal(line, &in); err != nil || in.Raw == nil {
			return fail(dst, `input line is not a JSON object with a string "raw"`)
		}
		res, err := lp.p.Parse(*in.Raw)
		if err != nil {
			return fail(dst, err.Error())
		}
		b, err := json.Marshal(result{res.Action, res.Reasoning, res.Notes})
		if err != nil {
			return fail(dst, err.Error())
		}
		return append(append(dst, b...), '\n')
	}
}

// BenchmarkPipeline runs `airi parse --jsonl` over the parser corpus on
// every core, with the hand-written line decoder and action encoder of
// encode.go and with plain encoding/json in their place. Both must write
// the same output.
func BenchmarkPipeline(b *testing.B) {
	reg, err := actions.NewBuiltinRegistry(actions.Handlers{})
	if err != nil {
		b.Fatal(err)
	}
	in := benchInput(b, 23000)
	run := func(lp *Pipeline) []byte {
		var out bytes.Buffer
		// Run unescapes the input in place: give it a copy.
		if err := lp.Run(context.Background(), bytes.NewReader(bytes.Clone(in)), &out, runtime.GOMAXPROCS(0)); err != nil {
			b.Fatal(err)
		}
		return out.Bytes()
	}
	handwritten := New(reg)
	plain := New(reg)
	plain.line = plainLine(plain)
	if h, p := run(handwritten), run(plain); !bytes.Equal(h, p) {
		b.Fatalf("the two pipelines disagree:\n%s", firstDiff(h, p))
	}
	for _, tc := range []struct {
		name string
		lp   *Pipeline
	}{{"handwritten", handwritten}, {"encoding_json", plain}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				run(tc.lp)
			}
		})
	}
}

// firstDiff shows the first output line where a and b differ.
func firstDiff(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range min(len(la), len(lb)) {
		if !bytes.Equal(la[i], lb[i]) {
			return string(la[i]) + "\n" + string(lb[i])
		}
	}
	return "different line counts"
}
