package parse

import (
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// flatMembers returns the members of a corpus case's normalized action,
// "action" first and the rest sorted, each value as compact JSON.
func flatMembers(tb testing.TB, want json.RawMessage) (keys []string, vals []string) {
	tb.Helper()
	m, ok := decodeUseNumber(tb, want).(map[string]any)
	if !ok {
		tb.Fatalf("want %s is not an object", want)
	}
	for k := range m {
		if k != "action" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	keys = append([]string{"action"}, keys...)
	for _, k := range keys {
		b, err := json.Marshal(m[k])
		if err != nil {
			tb.Fatal(err)
		}
		vals = append(vals, string(b))
	}
	return keys, vals
}

// joinObject writes an object with the given punctuation.
func joinObject(keys, vals []string, open, colon, comma, close string) string {
	var b strings.Builder
	b.WriteString(open)
	for i, k := range keys {
		if i > 0 {
			b.WriteString(comma)
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteString(colon)
		b.WriteString(vals[i])
	}
	b.WriteString(close)
	return b.String()
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestCorpusTransforms rewrites every accepted corpus action in the broken
// shapes models produce and checks that each parses back to the same
// action, and that a send cut off inside its text or holding a copied
// placeholder is refused.
func TestCorpusTransforms(t *testing.T) {
	p := newTestParser(t)
	transforms := []struct {
		name string
		make func(keys, vals []string) (string, bool)
	}{
		{"string once", func(k, v []string) (string, bool) { return quoteJSON(joinObject(k, v, "{", ":", ",", "}")), true }},
		{"string twice", func(k, v []string) (string, bool) {
			return quoteJSON(quoteJSON(joinObject(k, v, "{", ":", ",", "}"))), true
		}},
		{"string pretty", func(k, v []string) (string, bool) {
			return quoteJSON(joinObject(k, v, "{\n  ", ": ", ",\n  ", "\n}")), true
		}},
		{"escaped without quotes", func(k, v []string) (string, bool) {
			s := quoteJSON(joinObject(k, v, "{\n  ", ": ", ",\n  ", "\n}"))
			return s[1 : len(s)-1], true
		}},
		{"string in a field", func(k, v []string) (string, bool) {
			return `{"response":` + quoteJSON(joinObject(k, v, "{", ":", ",", "}")) + `}`, true
		}},
		{"full-width punctuation", func(k, v []string) (string, bool) {
			return joinObject(k, v, "｛", "：", "，", "｝"), true
		}},
		{"full-width colon and comma", func(k, v []string) (string, bool) {
			return joinObject(k, v, "{", "：", "，", "}"), true
		}},
		{"missing opening brace", func(k, v []string) (string, bool) {
			return joinObject(k, v, "", ":", ",", "}"), true
		}},
		{"missing closing quote", func(k, v []string) (string, bool) {
			last := v[len(v)-1]
			if !strings.HasPrefix(last, `"`) || strings.ContainsAny(last, "{}[]") || strings.HasSuffix(last, `\"`) {
				return "", false
			}
			s := joinObject(k, v, "{", ":", ",", "}")
			return s[:len(s)-2] + "}", true
		}},
		{"unescaped inner quotes", func(k, v []string) (string, bool) {
			s := joinObject(k, v, "{", ":", ",", "}")
			if !strings.Contains(s, `\"`) || strings.Contains(s, `\\`) {
				return "", false
			}
			return strings.ReplaceAll(s, `\"`, `"`), true
		}},
		{"parameters twice", func(k, v []string) (string, bool) {
			return `{"action":` + v[0] + `,"parameters":{"parameters":` + joinObject(k[1:], v[1:], "{", ":", ",", "}") + `}}`, true
		}},
	}
	tried, refusals := 0, 0
	for _, c := range loadCorpus(t) {
		if c.Want == nil {
			continue
		}
		keys, vals := flatMembers(t, c.Want)
		want := decodeUseNumber(t, c.Want)
		for _, tr := range transforms {
			raw, ok := tr.make(keys, vals)
			if !ok {
				continue
			}
			tried++
			got, err := p.Parse(raw)
			if err != nil {
				t.Errorf("%s, %s: %q refused: %v", c.Name, tr.name, raw, err)
				continue
			}
			out, _ := json.Marshal(got.Action)
			if !reflect.DeepEqual(decodeUseNumber(t, out), want) {
				t.Errorf("%s, %s: %q gave %s, want %s", c.Name, tr.name, raw, out, c.Want)
			}
		}
		// Refusals: a send cut inside its text, and a copied placeholder.
		if vals[0] != `"send_message"` {
			continue
		}
		full := joinObject(keys, vals, "{", ":", ",", "}")
		k := strings.Index(full, `"content":"`)
		if k < 0 {
			continue
		}
		start := k + len(`"content":"`)
		end := start + strings.Index(full[start:], `",`)
		if end < start {
			end = strings.LastIndex(full, `"`)
		}
		for cut := start + 1; cut < end; cut += max((end-start)/4, 1) {
			expectRefusal(t, p, c.Name+", cut", full[:cut], "cut off")
			refusals++
		}
		if strings.Contains(full, `"channelId":`) {
			expectRefusal(t, p, c.Name+", placeholder id", strings.Replace(full, `"channelId":`, `"channelId":"<id>","x":`, 1), "placeholder")
			refusals++
		}
	}
	t.Logf("%d transformed answers recovered, %d refusals checked", tried, refusals)
	if tried < 500 || refusals < 100 {
		t.Fatalf("only %d transformed answers and %d refusals tried", tried, refusals)
	}
}

func expectRefusal(t *testing.T, p *Parser, name, raw, part string) {
	t.Helper()
	got, err := p.Parse(raw)
	var pe *Error
	if !errors.As(err, &pe) {
		out, _ := json.Marshal(got.Action)
		t.Errorf("%s: %q accepted as %s, want a refusal", name, raw, out)
		return
	}
	if !strings.Contains(pe.Reason, part) {
		t.Errorf("%s: %q refused with %q, want it to mention %q", name, raw, pe.Reason, part)
	}
}
