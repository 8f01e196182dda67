package parse

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/actions"
)

func TestNarrowPunct(t *testing.T) {
	tests := []struct {
		name, in, want string
		changed        bool
	}{
		{"colon and comma", `{"a"："x"，"b"：1}`, `{"a":"x","b":1}`, true},
		{"braces", `｛"a": 1｝`, `{"a": 1}`, true},
		{"typographic quotes", `{“a”：“x，y”}`, `{"a":"x，y"}`, true},
		{"full-width quotes", `{＂a＂: ＂x＂}`, `{"a": "x"}`, true},
		{"content kept", `{"a":"一，二：三｛｝"，"b":"c"}`, `{"a":"一，二：三｛｝","b":"c"}`, true},
		{"comma before text is content", `{"a":"他说"好"，然后"}`, `{"a":"他说"好"，然后"}`, false},
		{"prose outside objects", `好的，我来回复：{"a":1}`, `好的，我来回复：{"a":1}`, false},
		{"quote inside typographic string", `{“a”：“他说“好”就走了”}`, `{"a":"他说“好”就走了"}`, true},
		{"quote to escape", `{“a”：“say "hi"”}`, `{"a":"say \"hi\""}`, true},
		{"unclosed typographic quote", `{“a：1}`, `{“a:1}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := narrowPunct(tt.in)
			if got != tt.want || changed != tt.changed {
				t.Fatalf("narrowPunct(%q) = %q, %v; want %q, %v", tt.in, got, changed, tt.want, tt.changed)
			}
		})
	}
}

func TestEscapeInnerQuotes(t *testing.T) {
	tests := []struct {
		name, in, want string
		changed        bool
	}{
		{"middle", `{"c":"he said "hi" to me"}`, `{"c":"he said \"hi\" to me"}`, true},
		{"before next key", `{"c":"the "x"","r":"1"}`, `{"c":"the \"x\"","r":"1"}`, true},
		{"comma inside", `{"c":"wrote "yes, sure", then"}`, `{"c":"wrote \"yes, sure\", then"}`, true},
		{"nested", `{"p":{"c":"a "b" c"}}`, `{"p":{"c":"a \"b\" c"}}`, true},
		{"unquoted keys", `{a: "x", b: "y "z""}`, `{a: "x", b: "y \"z\""}`, true},
		{"missing comma", `{"a":"x" "b":"y"}`, `{"a":"x" "b":"y"}`, false},
		{"valid", `{"a":"x","b":["y","z"]}`, `{"a":"x","b":["y","z"]}`, false},
		{"no end", `{"a":"x "y`, `{"a":"x "y`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := escapeInnerQuotes(tt.in)
			if got != tt.want || changed != tt.changed {
				t.Fatalf("escapeInnerQuotes(%q) = %q, %v; want %q, %v", tt.in, got, changed, tt.want, tt.changed)
			}
		})
	}
}

func TestCloseQuote(t *testing.T) {
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"flat", `{"a":"x","c":"bye}`, `{"a":"x","c":"bye"}`, true},
		{"nested", `{"p":{"c":"bye}}`, `{"p":{"c":"bye"}}`, true},
		{"fence after", "{\"c\":\"bye}\n```", `{"c":"bye"}`, true},
		{"one brace short", `{"p":{"c":"bye}`, "", false},
		{"brace of the text", `{"c":"see {you}`, "", false},
		{"no brace", `{"c":"bye`, "", false},
		{"escape before brace", `{"c":"a\}`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := closeQuote(tt.in, scanExtent(tt.in, 0))
			if got != tt.want || ok != tt.ok {
				t.Fatalf("closeQuote(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestOpenBrace(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{`"action":"continue"}`, `{"action":"continue"}`, true},
		{"```json\n\"action\": \"sleep\"}\n```", "```json\n{\"action\": \"sleep\"}\n```", true},
		{`'action': 'sleep'}`, `{'action': 'sleep'}`, true},
		{`"Note": I will wait {"action":"continue"}`, "", false},
		{`"Hello" she said`, "", false},
		{`"a very long sentence that is certainly not a key at all": 1`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := openBrace(tt.in)
			if ok != tt.ok || (ok && got != tt.want) {
				t.Fatalf("openBrace(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestIsPlaceholder(t *testing.T) {
	tests := []struct {
		in   string
		isID bool
		want bool
	}{
		{"<id>", true, true},
		{"<CHANNEL_ID>", true, true},
		{"<channel id>", true, true},
		{"{channelId}", true, true},
		{"{{id}}", true, true},
		{"...", true, true},
		{"…", true, true},
		{"<text>", false, true},
		{"<YOUR MESSAGE>", false, true},
		{"<回复内容>", false, true},
		{" <answer> ", false, true},
		{"...", false, false},
		{"<3", false, false},
		{"<b>", false, false},
		{"<br>", false, false},
		{"<@123456>", false, false},
		{"<#42>", true, false},
		{"<:wave:123>", false, false},
		{"use <id> here", false, false},
		{"-1001234567890", true, false},
		{"qq:12345", true, false},
		{"{{user}} hi", false, false},
	}
	for _, tt := range tests {
		if got := isPlaceholder(tt.in, tt.isID); got != tt.want {
			t.Errorf("isPlaceholder(%q, id=%v) = %v, want %v", tt.in, tt.isID, got, tt.want)
		}
	}
}

// TestDurationNeverWraps checks that no duration the parser accepts turns
// into a zero or negative time.Duration, whatever its size.
func TestDurationNeverWraps(t *testing.T) {
	p := newTestParser(t)
	for _, d := range []string{
		`9223372036854775807`, `"9223372036854775807"`, `99999999999999999999999`, `1e300`, `"1e400"`, `1e99999999999`,
		`"999999999999h"`, `"99999999999999999999 minutes"`, `9223372036854.775807`, `"PT9999999999999999H"`,
	} {
		for _, key := range []string{"duration", "seconds", "minutes"} {
			raw := `{"action":"sleep","` + key + `":` + d + `}`
			res, err := p.Parse(raw)
			if err != nil {
				t.Errorf("%s refused: %v", raw, err)
				continue
			}
			sl, ok := res.Action.Params.(*actions.Sleep)
			if !ok || sl.Duration == nil {
				t.Errorf("%s gave %#v, want a sleep with a duration", raw, res.Action.Params)
				continue
			}
			if d := time.Duration(*sl.Duration) * time.Millisecond; d <= 0 {
				t.Errorf("%s gave %d ms, a time.Duration of %v", raw, *sl.Duration, d)
			}
		}
	}
}

func TestDurationMSSaturates(t *testing.T) {
	tests := []struct {
		v      jval
		unit   int64
		want   int64
		capped bool
	}{
		{jval{kind: jNum, str: "30000"}, 1, 30000, false},
		{jval{kind: jNum, str: "9223372036854775807"}, 1, maxDurationMS, true},
		{jval{kind: jNum, str: "9223372036854775807"}, 1000, maxDurationMS, true},
		{jval{kind: jNum, str: "1e300"}, 1, maxDurationMS, true},
		{jval{kind: jNum, str: "1e99999999999"}, 60000, maxDurationMS, true},
		{jval{kind: jNum, str: "-1e300"}, 1, -maxDurationMS, false},
		{jval{kind: jStr, str: "9223372036854775807"}, 1, maxDurationMS, true},
		{jval{kind: jStr, str: "999999999999h"}, 1, maxDurationMS, true},
		{jval{kind: jStr, str: "99999999999999999999999 seconds"}, 1, maxDurationMS, true},
		{jval{kind: jStr, str: "2m"}, 1, 120000, false},
	}
	for _, tt := range tests {
		got, capped, ok := durationMS(tt.v, tt.unit)
		if !ok || got != tt.want || capped != tt.capped {
			t.Errorf("durationMS(%q, %d) = %d, %v, %v; want %d, %v", tt.v.str, tt.unit, got, capped, ok, tt.want, tt.capped)
		}
		if got > 0 && time.Duration(got)*time.Millisecond <= 0 {
			t.Errorf("durationMS(%q) = %d wraps as a time.Duration", tt.v.str, got)
		}
	}
	if maxDurationMS > math.MaxInt64/int64(time.Millisecond) {
		t.Fatalf("maxDurationMS %d overflows a time.Duration", maxDurationMS)
	}
}

// TestCutContentNeverSent checks that a send whose text the end of the
// answer interrupted is refused however it is written, with a refusal that
// tells the model to answer shorter.
func TestCutContentNeverSent(t *testing.T) {
	p := newTestParser(t)
	long := strings.Repeat("lorem ipsum dolor sit amet ", 200000) // about 5 MB
	for _, raw := range []string{
		`{"action":"send_message","channelId":"42","content":"` + long,
		`{'action':'send_message','channelId':'42','content':'` + long,
		`{"action":"send_message","parameters":{"channelId":"42","content":"` + long,
		`{"name":"send_message","arguments":"{\"channelId\":\"42\",\"content\":\"` + long,
		"```json\n{\"action\":\"send_message\",\"channelId\":\"42\",\"content\":\"" + long,
		"Action: send_message\nAction Input: {\"channelId\": \"42\", \"content\": \"" + long,
		`{\"action\":\"send_message\",\"channelId\":\"42\",\"content\":\"` + long,
		`{"action":"send_message","channelId":"42","content":"` + long + `{`,
	} {
		_, err := p.Parse(raw)
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("%.60q…: accepted, want a refusal", raw)
			continue
		}
		if !strings.Contains(pe.Reason, "cut off") || !strings.Contains(pe.Reason, "shorter") {
			t.Errorf("%.60q…: refusal %q does not say the answer was cut off and to answer shorter", raw, pe.Reason)
		}
	}
}
