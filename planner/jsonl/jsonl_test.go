package jsonl

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
)

func TestRunKeepsOrder(t *testing.T) {
	reg, err := actions.NewBuiltinRegistry(actions.Handlers{})
	if err != nil {
		t.Fatal(err)
	}
	lp := New(reg)
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
	if err := lp.Run(context.Background(), &in, &out, 4); err != nil {
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
		{Name: "send_message", Params: &actions.SendMessage{ChannelID: "-100", Content: "more", ReplyTo: "7", Then: actions.ThenNext}},
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
	for _, s := range []string{`{"raw":"x"}`, `{"raw":"\ud83d\ude00\n"}`, `{"a":[1,{"b":null}],"raw":"y"}`, `{"raw":"\u12"}`, `{"raw":"a","raw":"b"}`, `{"raw":"a","finish":"stop"}`, `{"finish":1,"raw":"a"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, finish, err := rawField(bytes.Clone(line))
		var m map[string]any
		jerr := json.Unmarshal(line, &m)
		want, isString := m["raw"].(string)
		wantFinish, finishString := m["finish"].(string)
		if _, has := m["finish"]; !has {
			finishString = true
		}
		if jerr != nil || !isString || !finishString {
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
		if utf8.Valid(line) && (got != want || finish != wantFinish) {
			t.Fatalf("rawField(%q) = %q, %q; want %q, %q", line, got, finish, want, wantFinish)
		}
	})
}
