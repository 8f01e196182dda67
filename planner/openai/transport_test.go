package openai

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"
)

func TestMergeBody(t *testing.T) {
	merge, err := encodeMerge(map[string]any{
		"temperature": float32(0),
		"top_k":       20,
		"max_tokens":  nil,
		"thinking":    map[string]any{"type": "disabled"},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, in, want string
	}{
		{"typical", `{"model":"m","messages":[{"role":"user","content":"a \"}\" b"}],"max_tokens":1024,"stream":false}`,
			`{"messages":[{"role":"user","content":"a \"}\" b"}],"model":"m","stream":false,"temperature":0,"thinking":{"type":"disabled"},"top_k":20}`},
		{"replaces", `{"top_k":1,"model":"m"}`, `{"model":"m","temperature":0,"thinking":{"type":"disabled"},"top_k":20}`},
		{"text as written", `{"messages":[{"content":"<b>a & b</b>"}]}`, `{"messages":[{"content":"<b>a & b</b>"}],"temperature":0,"thinking":{"type":"disabled"},"top_k":20}`},
		{"empty object", `{}`, `{"temperature":0,"thinking":{"type":"disabled"},"top_k":20}`},
		{"spaces", " { \"a\" : [ 1 , {\"b\":null} ] , \"c\":true } ", `{"a":[1,{"b":null}],"c":true,"temperature":0,"thinking":{"type":"disabled"},"top_k":20}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mergeBody([]byte(tt.in), merge)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("mergeBody = %s\nwant        %s", got, tt.want)
			}
		})
	}
	for _, in := range []string{`[1]`, `null`, `{"a":`} {
		if _, err := mergeBody([]byte(in), merge); err == nil {
			t.Errorf("mergeBody accepted %s", in)
		}
	}
}

// FuzzMergeBody checks that every other member survives the merge.
func FuzzMergeBody(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":5}`,
		`{"a\"b":1,"top_k":{"x":[1,2,"]"]}}`,
		`{}`, `{"a":"\\"}`, ` {"x" : -1.5e3 , "y":[]} `, `{"a":1,"a":2}`,
	} {
		f.Add(s)
	}
	merge, _ := encodeMerge(map[string]any{"top_k": 20, "max_tokens": nil, "extra": []string{"}"}})
	f.Fuzz(func(t *testing.T, in string) {
		var want map[string]any
		if json.Unmarshal([]byte(in), &want) != nil || hasDuplicateKeys(in) {
			return
		}
		got, err := mergeBody([]byte(in), merge)
		if err != nil {
			t.Fatalf("mergeBody(%q): %v", in, err)
		}
		var gotObj map[string]any
		if err := json.Unmarshal(got, &gotObj); err != nil {
			t.Fatalf("mergeBody(%q) = %q, not JSON: %v", in, got, err)
		}
		delete(want, "max_tokens")
		want["top_k"] = float64(20)
		want["extra"] = []any{"}"}
		if !reflect.DeepEqual(gotObj, want) {
			t.Fatalf("mergeBody(%q) = %s, want %v", in, got, want)
		}
	})
}

// hasDuplicateKeys reports whether the top level repeats a key, where
// decoding keeps the last and splicing keeps both.
func hasDuplicateKeys(in string) bool {
	dec := json.NewDecoder(strings.NewReader(in))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		k, _ := tok.(string)
		if seen[k] {
			return true
		}
		seen[k] = true
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}

// FuzzAnswer feeds arbitrary success bodies to the response handling: it
// must never panic, and either give the raw content or a classified error.
func FuzzAnswer(f *testing.F) {
	for _, s := range []string{
		`{"choices":[{"message":{"content":"{\"action\":\"continue\"}","reasoning":"r"}}],"usage":{"prompt_tokens":3,"prompt_cache_hit_tokens":2}}`,
		`{"choices":[{"message":{"content":"<think>x</think>"},"finish_reason":"length"}]}`,
		`{"choices":[{"message":{"tool_calls":[{"function":{"name":"continue","arguments":"{}"}}]}}]}`,
		`{"choices":[]}`, `{"error":"busy"}`, `{"choices":[{"message":{"refusal":"no"}}]}`,
	} {
		f.Add([]byte(s))
	}
	c, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var out goopenai.ChatCompletionResponse
		if json.Unmarshal(body, &out) != nil {
			return
		}
		r, err := c.answer(out, &exchange{status: 200, header: http.Header{}, body: body})
		if err != nil {
			if cl := Class(err); cl != ClassMalformed && cl != ClassEmpty {
				t.Fatalf("answer(%s): error of class %q: %v", body, cl, err)
			}
			return
		}
		if strings.TrimSpace(r.Content) == "" {
			t.Fatalf("answer(%s) succeeded with empty content", body)
		}
	})
}
