package parse

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/airi-go/airi/actions"
)

// corpusCase is one line of testdata/parse/corpus.jsonl: a raw answer and
// either the normalized action it must give or a part of the refusal.
type corpusCase struct {
	Name      string          `json:"name"`
	Raw       string          `json:"raw"`
	Want      json.RawMessage `json:"want"`
	Notes     []string        `json:"notes"`
	Reasoning string          `json:"reasoning"`
	Error     string          `json:"error"`
	// Finish is how the provider said the answer ended: "stop",
	// "length" or absent for unknown.
	Finish string `json:"finish"`
}

// parseCase parses a corpus case as the provider said it ended.
func parseCase(tb testing.TB, p *Parser, c corpusCase) (Result, error) {
	tb.Helper()
	finish, err := ParseFinish(c.Finish)
	if err != nil {
		tb.Fatalf("corpus case %q: %v", c.Name, err)
	}
	return p.ParseEnded(c.Raw, finish)
}

const corpusPath = "../../testdata/parse/corpus.jsonl"

func loadCorpus(tb testing.TB) []corpusCase {
	tb.Helper()
	f, err := os.Open(corpusPath)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var cases []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			tb.Fatalf("corpus line %d: %v", len(cases)+1, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return cases
}

func newTestParser(tb testing.TB) *Parser {
	tb.Helper()
	reg, err := actions.NewBuiltinRegistry(actions.Handlers{})
	if err != nil {
		tb.Fatal(err)
	}
	return New(reg)
}

// decodeUseNumber decodes JSON for comparison without float rounding.
func decodeUseNumber(tb testing.TB, b []byte) any {
	tb.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		tb.Fatalf("decode %s: %v", b, err)
	}
	return v
}

func TestParseCorpus(t *testing.T) {
	p := newTestParser(t)
	cases := loadCorpus(t)
	if len(cases) < 150 {
		t.Fatalf("corpus has %d cases, want at least 150", len(cases))
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.Name] {
			t.Fatalf("duplicate corpus case name %q", c.Name)
		}
		seen[c.Name] = true
		t.Run(c.Name, func(t *testing.T) {
			got, err := parseCase(t, p, c)
			// A second parse of the same answer (now with remembered
			// repairs) must give the same outcome.
			again, err2 := parseCase(t, p, c)
			if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) || !reflect.DeepEqual(got, again) {
				t.Fatalf("second parse differs: %v / %v, %+v / %+v", err, err2, got, again)
			}
			if c.Error != "" {
				if err == nil {
					out, _ := json.Marshal(got.Action)
					t.Fatalf("accepted %s, want refusal mentioning %q", out, c.Error)
				}
				var pe *Error
				if !errors.As(err, &pe) {
					t.Fatalf("error %T is not a *Error", err)
				}
				if !strings.Contains(err.Error(), c.Error) {
					t.Fatalf("error %q does not mention %q", err, c.Error)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			out, err := json.Marshal(got.Action)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(decodeUseNumber(t, out), decodeUseNumber(t, c.Want)) {
				t.Fatalf("got  %s\nwant %s", out, c.Want)
			}
			for _, n := range c.Notes {
				if !containsPart(got.Notes, n) {
					t.Errorf("notes %q lack %q", got.Notes, n)
				}
			}
			if c.Reasoning != "" && !strings.Contains(got.Reasoning, c.Reasoning) {
				t.Errorf("reasoning %q lacks %q", got.Reasoning, c.Reasoning)
			}
			checkAccepted(t, p, got)
		})
	}
}

func containsPart(notes []string, part string) bool {
	for _, n := range notes {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

// checkAccepted asserts that an accepted action validates against its
// schema and survives a round trip through its flat JSON form.
func checkAccepted(tb testing.TB, p *Parser, got Result) {
	tb.Helper()
	out, err := json.Marshal(got.Action)
	if err != nil {
		tb.Fatalf("marshal %v: %v", got.Action, err)
	}
	var flat map[string]json.RawMessage
	if err := json.Unmarshal(out, &flat); err != nil {
		tb.Fatalf("flat form %s: %v", out, err)
	}
	var name string
	if err := json.Unmarshal(flat["action"], &name); err != nil || name != got.Action.Name {
		tb.Fatalf("flat form %s names %q, want %q", out, name, got.Action.Name)
	}
	delete(flat, "action")
	params, err := json.Marshal(flat)
	if err != nil {
		tb.Fatal(err)
	}
	again, err := p.reg.Decode(name, params)
	if err != nil {
		tb.Fatalf("accepted action %s does not validate: %v", out, err)
	}
	if !reflect.DeepEqual(again.Params, got.Action.Params) {
		tb.Fatalf("round trip of %s gave %#v, want %#v", out, again.Params, got.Action.Params)
	}
	// A normalized action parses to itself.
	back, err := p.Parse(string(out))
	if err != nil {
		tb.Fatalf("normalized form %s refused: %v", out, err)
	}
	if !reflect.DeepEqual(back.Action, got.Action) {
		tb.Fatalf("normalized form %s parsed to %#v", out, back.Action)
	}
}

func TestParseErrorUnwrap(t *testing.T) {
	p := newTestParser(t)
	_, err := p.Parse(`{"action":"fly"}`)
	if !errors.Is(err, actions.ErrUnknownAction) {
		t.Fatalf("error %v does not wrap ErrUnknownAction", err)
	}
	for _, name := range []string{"break", "continue", "list_channels", "read_unread_messages", "send_message", "sleep"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not list %s", err, name)
		}
	}
}

func TestParseConcurrent(t *testing.T) {
	p := newTestParser(t)
	cases := loadCorpus(t)
	done := make(chan error, 4)
	for w := 0; w < 4; w++ {
		go func() {
			for _, c := range cases {
				finish, _ := ParseFinish(c.Finish)
				_, err := p.ParseEnded(c.Raw, finish)
				if (err != nil) != (c.Error != "") {
					done <- errors.New(c.Name + ": outcome differs under concurrency")
					return
				}
			}
			done <- nil
		}()
	}
	for w := 0; w < 4; w++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestParseDurationMS(t *testing.T) {
	tests := []struct {
		in   string
		unit int64
		want int64
		ok   bool
	}{
		{"30000", 1, 30000, true},
		{"3e4", 1, 30000, true},
		{"30s", 1, 30000, true},
		{"2m", 1, 120000, true},
		{"1h30m", 1, 5400000, true},
		{"2.5 seconds", 1, 2500, true},
		{"PT45S", 1, 45000, true},
		{"45", 1000, 45000, true},
		{"30 секунд", 1, 30000, true},
		{"10分", 1, 600000, true},
		{"soon", 1, 0, false},
		{"5 parsecs", 1, 0, false},
		{"", 1, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := parseDurationMS(tt.in, tt.unit)
			if ok != tt.ok || got != tt.want {
				t.Fatalf("parseDurationMS(%q, %d) = %d, %v; want %d, %v", tt.in, tt.unit, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestParseStrictNumbersKeepDigits(t *testing.T) {
	v, ok := parseStrict(`{"a": 123456789012345678901234567890, "b": -0.5e-10}`)
	if !ok {
		t.Fatal("strict parse failed")
	}
	if v.obj[0].val.str != "123456789012345678901234567890" || v.obj[1].val.str != "-0.5e-10" {
		t.Fatalf("numbers changed: %+v", v.obj)
	}
	for _, bad := range []string{`{"a":01}`, `{"a":1.}`, `{"a":"\x"}`, "{\"a\":\"\n\"}", `{"a":1,}`, `[1 2]`, `{"a" 1}`, `tru`} {
		if _, ok := parseStrict(bad); ok {
			t.Errorf("parseStrict(%q) accepted invalid JSON", bad)
		}
	}
}

// TestSchemaCheckMatchesValidator compares the parser's derived checks
// with the registry's schema checks on values at and around every bound.
func TestSchemaCheckMatchesValidator(t *testing.T) {
	p := newTestParser(t)
	for name, info := range p.infos {
		if !info.check.exact {
			t.Errorf("%s: schema checks not derived; the parser would fall back to the validator", name)
			continue
		}
		for i, f := range info.fields {
			var samples []slot
			switch f.Type {
			case "string":
				for _, s := range []string{"", "a", "42", "éé", "长文本内容", strings.Repeat("x", 300)} {
					samples = append(samples, slot{kind: jStr, str: s})
				}
			case "integer":
				for _, n := range []int64{-1 << 62, -1, 0, 1, 600000, 1 << 62} {
					samples = append(samples, slot{kind: jNum, num: n})
				}
			case "boolean":
				samples = append(samples, slot{kind: jBool, num: 0}, slot{kind: jBool, num: 1})
			}
			for _, s := range samples {
				s := s
				_, ok := info.check.fields[i].check(&s)
				m := map[string]any{}
				for j, g := range info.fields {
					if g.Required && j != i {
						m[g.Name] = validSample(t, p, name, g.Name)
					}
				}
				m[f.Name] = s.value()
				err := p.reg.Validate(name, m)
				if ok != (err == nil) {
					t.Errorf("%s.%s = %v: derived check ok=%v, validator err=%v", name, f.Name, s.value(), ok, err)
				}
			}
		}
	}
}

// validSample returns a value the schema accepts for a required field:
// the first of its enum, or "1".
func validSample(t *testing.T, p *Parser, action, field string) any {
	t.Helper()
	for _, e := range p.reg.Catalog() {
		if e.Name != action {
			continue
		}
		var sch struct {
			Properties map[string]struct {
				Enum []any `json:"enum"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(e.Schema, &sch); err != nil {
			t.Fatal(err)
		}
		if en := sch.Properties[field].Enum; len(en) > 0 {
			return en[0]
		}
	}
	return "1"
}

// TestSchemaCheckFallsBack makes sure an action whose schema uses keywords
// the derived checks do not cover is validated by the registry.
func TestSchemaCheckFallsBack(t *testing.T) {
	type tagged struct {
		Tag string `json:"tag" jsonschema:"pattern=^[a-z]+$"`
	}
	reg, err := actions.NewRegistry(actions.Spec{Name: "tag", Params: tagged{}})
	if err != nil {
		t.Fatal(err)
	}
	p := New(reg)
	if p.infos["tag"].check.exact {
		t.Fatal("pattern schema treated as fully understood")
	}
	if _, err := p.Parse(`{"action":"tag","tag":"abc"}`); err != nil {
		t.Fatalf("valid tag refused: %v", err)
	}
	if _, err := p.Parse(`{"action":"tag","tag":"ABC"}`); err == nil {
		t.Fatal("tag violating the pattern accepted")
	}
}

// TestFixedPointMatchesBig compares the integer fast path for decimal
// numbers with arbitrary-precision arithmetic.
func TestFixedPointMatchesBig(t *testing.T) {
	inputs := []string{"0", "1", "-1", "30000", "3e4", "3E+4", "1.5", "1.49", "2.5", "-2.5", "0.0004", "1e-3", "123456789012345",
		"999999999999999", "1.5e3", "12.345e1", "7e18", "9e18", "0.5e1", "100e-2", "+42"}
	for _, in := range inputs {
		for _, unit := range []int64{1, 1000, 60000, 3600000} {
			n, exact, ok := fixedPoint(in, unit)
			if !ok {
				continue
			}
			r, ok2 := new(big.Rat).SetString(in)
			if !ok2 {
				t.Fatalf("big.Rat cannot read %q", in)
			}
			r.Mul(r, new(big.Rat).SetInt64(unit))
			if r.IsInt() != exact {
				t.Errorf("fixedPoint(%q, %d): exact=%v, big.Rat says %v", in, unit, exact, r.IsInt())
			}
			// Round the magnitude half up, then apply the sign.
			abs := new(big.Rat).Abs(r)
			abs.Add(abs, big.NewRat(1, 2))
			q := new(big.Int).Quo(abs.Num(), abs.Denom())
			if r.Sign() < 0 {
				q.Neg(q)
			}
			want := q.Int64()
			if n != want {
				t.Errorf("fixedPoint(%q, %d) = %d, want %d", in, unit, n, want)
			}
		}
	}
}
