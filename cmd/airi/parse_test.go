package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/planner"
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
func TestCmdParseJSONLOrder(t *testing.T) {
	reg, err := actions.NewBuiltinRegistry(actions.Handlers{})
	if err != nil {
		t.Fatal(err)
	}
	lp := &lineParser{p: planner.NewParser(reg), enc: newActionEncoder(reg)}
	var in bytes.Buffer
	const n = 5000
	for i := 0; i < n; i++ {
		var raw string
		switch i % 3 {
		case 0:
			raw = fmt.Sprintf(`{"action":"send_message","channelId":"%d","content":"%s"}`, i, strings.Repeat("x", i%700))
		case 1:
			raw = fmt.Sprintf("<think>n</think>{'action': 'read_unread_messages', channel_id: %d,}", i)
		default:
			raw = fmt.Sprintf("no action %d", i)
		}
		line, _ := json.Marshal(map[string]string{"raw": raw})
		in.Write(line)
		in.WriteByte('\n')
	}
	var out bytes.Buffer
	if err := lp.parseLines(context.Background(), &in, &out, 4); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	i := 0
	for ; sc.Scan(); i++ {
		var res struct {
			Action map[string]any `json:"action"`
			Error  string         `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &res); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		switch i % 3 {
		case 0, 1:
			if res.Action["channelId"] != fmt.Sprint(i) {
				t.Fatalf("line %d carries %v, out of order", i+1, res.Action)
			}
		default:
			if res.Error == "" {
				t.Fatalf("line %d: want an error, got %s", i+1, sc.Bytes())
			}
		}
	}
	if i != n {
		t.Fatalf("%d output lines, want %d", i, n)
	}
}

// TestActionEncoderMatchesMarshalJSON checks that the fast encoder writes
// exactly what actions.Action.MarshalJSON writes.
func TestActionEncoderMatchesMarshalJSON(t *testing.T) {
	reg, err := actions.NewBuiltinRegistry(actions.Handlers{})
	if err != nil {
		t.Fatal(err)
	}
	enc := newActionEncoder(reg)
	if len(enc.plans) != len(reg.Names()) {
		t.Errorf("encoder has plans for %d of %d actions", len(enc.plans), len(reg.Names()))
	}
	d := int64(0)
	big := int64(1 << 60)
	tests := []actions.Action{
		{Name: "send_message", Params: &actions.SendMessage{ChannelID: "42", Content: "hi <b> & \"q\" \\ \n\t\u2028 \x01 é 😀 \xff"}},
		{Name: "send_message", Params: &actions.SendMessage{ChannelID: "-100", Content: "", ReplyTo: "7"}},
		{Name: "sleep", Params: &actions.Sleep{}},
		{Name: "sleep", Params: &actions.Sleep{Duration: &d}},
		{Name: "sleep", Params: &actions.Sleep{Duration: &big}},
		{Name: "continue", Params: &actions.Continue{}},
		{Name: "break", Params: &actions.Break{}},
		{Name: "list_channels", Params: &actions.ListChannels{}},
		{Name: "read_unread_messages", Params: &actions.ReadUnreadMessages{ChannelID: "9"}},
		{Name: "send_message", Params: (*actions.SendMessage)(nil)},
		{Name: "custom", Params: &struct{ X []int }{X: []int{1}}},
		{Name: "none"},
	}
	for _, a := range tests {
		want, err := a.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		got, err := enc.appendAction(nil, a)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("appendAction = %s\nMarshalJSON  = %s", got, want)
		}
	}
}

// TestActionEncoderPlans checks the reflection-based path used for
// registered parameter types other than the built-in ones.
func TestActionEncoderPlans(t *testing.T) {
	type note struct {
		Text  string `json:"text"`
		Count int    `json:"count,omitempty"`
		Pin   *bool  `json:"pin,omitempty"`
		Loud  bool   `json:"loud"`
	}
	reg, err := actions.NewRegistry(actions.Spec{Name: "note", Params: note{}})
	if err != nil {
		t.Fatal(err)
	}
	enc := newActionEncoder(reg)
	if len(enc.plans) != 1 {
		t.Fatalf("no plan for the note type")
	}
	yes := true
	for _, params := range []*note{{Text: "a<b"}, {Text: "x", Count: -3, Pin: &yes, Loud: true}} {
		a := actions.Action{Name: "note", Params: params}
		want, err := a.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		got, err := enc.appendAction(nil, a)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("appendAction = %s\nMarshalJSON  = %s", got, want)
		}
	}
}

func FuzzRawField(f *testing.F) {
	for _, s := range []string{`{"raw":"x"}`, `{"raw":"\ud83d\ude00\n"}`, `{"a":[1,{"b":null}],"raw":"y"}`, `{"raw":"\u12"}`, `{"raw":"a","raw":"b"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, err := rawField(bytes.Clone(line))
		var m map[string]any
		jerr := json.Unmarshal(line, &m)
		want, isString := m["raw"].(string)
		if jerr != nil || !isString {
			if err == nil {
				t.Fatalf("rawField accepted %q, which is not an object with a string raw (%v)", line, jerr)
			}
			return
		}
		if err != nil {
			t.Fatalf("rawField refused %q: %v", line, err)
		}
		// encoding/json replaces invalid UTF-8 while decoding; rawField
		// leaves that to the output encoder.
		if utf8.Valid(line) && got != want {
			t.Fatalf("rawField(%q) = %q, want %q", line, got, want)
		}
	})
}
