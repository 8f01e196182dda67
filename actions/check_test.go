package actions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	validator "github.com/santhosh-tekuri/jsonschema/v6"
)

// everyKeyword uses every keyword the parameter checks support, on every
// Go type they decode into.
type everyKeyword struct {
	Name     string   `json:"name" jsonschema:"minLength=2,maxLength=5,title=Name,description=A short name."`
	Code     string   `json:"code,omitempty" jsonschema:"pattern=^[a-z]+$"`
	Kind     string   `json:"kind,omitempty" jsonschema:"enum=a,enum=é,enum=next"`
	Count    int      `json:"count" jsonschema:"minimum=-3,maximum=10,default=1,example=2"`
	Small    *int8    `json:"small,omitempty" jsonschema:"exclusiveMinimum=0,exclusiveMaximum=100"`
	Level    int64    `json:"level,omitempty" jsonschema:"enum=1,enum=3"`
	Ratio    float64  `json:"ratio,omitempty" jsonschema:"minimum=0.5,exclusiveMaximum=2.5"`
	Weight   *float32 `json:"weight,omitempty" jsonschema:"enum=0.5,enum=2"`
	Flag     bool     `json:"flag,omitempty"`
	Opt      *bool    `json:"opt,omitempty" jsonschema:"default=true"`
	Unsigned uint16   `json:"unsigned,omitempty" jsonschema:"readOnly=true"`
	ID       string   `json:"id,omitempty" jsonschema:"required,writeOnly=true"`
	Upper    string   `json:"ID2,omitempty"`
	Plain    string
	Ignored  string `json:"-"`
}

// caseTwins has two parameters whose names differ only in case, where
// encoding/json's case-insensitive matching could pick the wrong field.
type caseTwins struct {
	Lower string `json:"name"`
	Upper int    `json:"Name,omitempty"`
}

// testSpecs returns the built-in actions and the test-only ones.
func testSpecs() []Spec {
	return append(BuiltinSpecs(Handlers{}),
		Spec{Name: "every", Params: everyKeyword{}},
		Spec{Name: "twins", Params: caseTwins{}},
		Spec{Name: "bare", Params: struct {
			Text  string `json:"text"`
			Count int    `json:"count,omitempty"`
			Pin   *bool  `json:"pin,omitempty"`
			Loud  bool   `json:"loud"`
		}{}},
	)
}

// member is one key of a generated parameter object with its JSON text.
type member struct{ key, val string }

func object(ms []member) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.WriteString(m.val)
	}
	b.WriteByte('}')
	return b.String()
}

func quoted(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// candidates are the values tried for every parameter.
func candidates() []string {
	var out []string
	for _, s := range []string{"", "a", "ab", "abcde", "abcdef", "é", "éé", "ééééé", "éééééé", "😀😀", "😀😀😀😀😀😀",
		"长文本内容", "ABC", "abc", "a1", "next", "end", "user", "channel", "global", "planet", "7", "1.5", "true",
		strings.Repeat("x", 500), strings.Repeat("x", 501), strings.Repeat("é", 500), strings.Repeat("é", 501),
		"a\x00b", "line\nbreak"} {
		out = append(out, quoted(s))
	}
	out = append(out,
		`"\u00e9\u00e9"`, `"\ud83d\ude00\ud83d\ude00"`, `"\ud800x"`, "\"\xff\xfe\"", `"ab\/c"`,
		"0", "-0", "1", "1.0", "1.5", "-1", "-1.0", "2", "2.0", "2.5", "0.5", "-3", "-4", "3", "10", "10.0", "11",
		"99", "100", "127", "128", "255", "65535", "65536", "1e3", "1E3", "1e-3", "1e2", "0.1", "1e0", "-0.0",
		"2e0", "25e-1", "0.25e1", "1e400", "-1e400", "1e100000",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"true", "false", "null", "{}", "[]", "[1]", `{"a":1}`, `[""]`,
	)
	return out
}

// baselines are parameter objects every validator accepts.
var baselines = map[string]string{
	NameSendMessage:    `{"channelId":"1","content":"hi"}`,
	NameReadUnread:     `{"channelId":"1"}`,
	NameSleep:          `{}`,
	NameContinue:       `{}`,
	NameBreak:          `{}`,
	NameListChannels:   `{}`,
	NameRemember:       `{"scope":"user","content":"likes tea"}`,
	NameForget:         `{"id":"7"}`,
	NameSchedule:       `{"channelId":"c","content":"call the vet","after":"2h","every":"daily","compose":true}`,
	NameListSchedules:  `{"channelId":"c"}`,
	NameCancelSchedule: `{"id":"3"}`,
	NameReact:          `{"channelId":"1","messageId":"812","emoji":"👍"}`,
	"every":            `{"name":"abc","count":1,"id":"x","Plain":"p"}`,
	"twins":            `{"name":"a"}`,
	"bare":             `{"text":"t","loud":false}`,
}

// oracle validates with the JSON schema library against the generated
// schema, and decodes as the registry did before it checked parameters
// itself.
type oracle struct {
	compiled map[string]*validator.Schema
	reg      *Registry
}

func newOracle(t testing.TB, reg *Registry) *oracle {
	t.Helper()
	o := &oracle{compiled: map[string]*validator.Schema{}, reg: reg}
	for _, e := range reg.Catalog() {
		doc, err := validator.UnmarshalJSON(bytes.NewReader(e.Schema))
		if err != nil {
			t.Fatal(err)
		}
		c := validator.NewCompiler()
		url := "airi:///actions/" + e.Name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
		if o.compiled[e.Name], err = c.Compile(url); err != nil {
			t.Fatal(err)
		}
	}
	return o
}

// validate reports whether the library accepts v; a panic inside it
// (a number too large for it to compare) counts as a refusal.
func (o *oracle) validate(name string, v any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return o.compiled[name].Validate(v)
}

// decode is Decode as it was: the library's check, then encoding/json.
func (o *oracle) decode(name, raw string) (any, error) {
	if strings.TrimSpace(raw) == "" {
		raw = "{}"
	}
	inst, err := validator.UnmarshalJSON(strings.NewReader(raw))
	if err != nil {
		return nil, err
	}
	if err := o.validate(name, inst); err != nil {
		return nil, err
	}
	v := reflect.New(o.reg.byKey[name].typ).Interface()
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		return nil, err
	}
	return v, nil
}

// compare runs one parameter object through both validators by every
// entry point; about names the parameter a refusal must mention.
func (o *oracle) compare(t testing.TB, name, raw, about string) {
	t.Helper()
	want, werr := o.decode(name, raw)
	got, gerr := o.reg.Decode(name, json.RawMessage(raw))
	if (werr == nil) != (gerr == nil) {
		t.Errorf("Decode(%s, %s): error %v, the library says %v", name, raw, gerr, werr)
		return
	}
	if gerr == nil && !reflect.DeepEqual(got.Params, want) {
		t.Errorf("Decode(%s, %s) = %#v, want %#v", name, raw, got.Params, want)
	}
	if gerr != nil && about != "" && !strings.Contains(gerr.Error(), strconv.Quote(about)) &&
		!strings.Contains(gerr.Error(), "."+about+" of type") {
		t.Errorf("Decode(%s, %s): error %q does not name %q", name, raw, gerr, about)
	}
	for _, useNumber := range []bool{true, false} {
		dec := json.NewDecoder(strings.NewReader(raw))
		if useNumber {
			dec.UseNumber()
		}
		var m map[string]any
		if err := dec.Decode(&m); err != nil || m == nil {
			continue // not an object, or a number float64 cannot hold
		}
		werr := o.validate(name, m)
		gerr := o.reg.Validate(name, m)
		if (werr == nil) != (gerr == nil) {
			t.Errorf("Validate(%s, %s) useNumber=%v: error %v, the library says %v", name, raw, useNumber, gerr, werr)
			continue
		}
		if gerr != nil {
			if !strings.HasPrefix(gerr.Error(), name+" parameters do not match its schema: ") {
				t.Errorf("Validate(%s, %s): error %q lacks the prefix", name, raw, gerr)
			}
			if about != "" && !strings.Contains(gerr.Error(), strconv.Quote(about)) {
				t.Errorf("Validate(%s, %s): error %q does not name %q", name, raw, gerr, about)
			}
		}
	}
}

func membersOf(t *testing.T, raw string) []member {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var out []member
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, member{k.(string), string(v)})
	}
	return out
}

func with(base []member, m member) []member {
	out := make([]member, 0, len(base)+1)
	for _, b := range base {
		if b.key != m.key {
			out = append(out, b)
		}
	}
	return append(out, m)
}

func without(base []member, key string) []member {
	var out []member
	for _, b := range base {
		if b.key != key {
			out = append(out, b)
		}
	}
	return out
}

// TestChecksMatchSchemaLibrary compares the registry's checks with the JSON
// schema library on the generated schema of every built-in action and of
// test actions that use every supported keyword: single changes of a valid
// object, then random objects.
func TestChecksMatchSchemaLibrary(t *testing.T) {
	reg, err := NewRegistry(testSpecs()...)
	if err != nil {
		t.Fatal(err)
	}
	o := newOracle(t, reg)
	cands := candidates()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range reg.Names() {
		t.Run(name, func(t *testing.T) {
			baseRaw, ok := baselines[name]
			if !ok {
				t.Fatalf("no valid parameters known for %s", name)
			}
			if _, err := reg.Decode(name, json.RawMessage(baseRaw)); err != nil {
				t.Fatalf("valid parameters refused: %v", err)
			}
			base := membersOf(t, baseRaw)
			props := reg.byKey[name].check.props
			for _, top := range []string{"", " ", "null", "[]", `"x"`, "1", "true", `{}`, `{"a":1} {}`, `{"a"}`, `{`} {
				o.compare(t, name, top, "")
			}
			for _, p := range props {
				for _, c := range cands {
					o.compare(t, name, object(with(base, member{p.name, c})), p.name)
				}
				o.compare(t, name, object(without(base, p.name)), p.name)
				for _, k := range []string{strings.ToUpper(p.name), strings.ToUpper(p.name[:1]) + p.name[1:], strings.ToLower(p.name)} {
					if k == p.name {
						continue
					}
					if _, taken := reg.byKey[name].check.byName[k]; taken {
						continue
					}
					valid := baseValue(base, p.name, "")
					if valid == "" {
						valid = `"v"`
					}
					o.compare(t, name, object(with(without(base, p.name), member{k, valid})), k)
					o.compare(t, name, object(with(base, member{k, valid})), k)
				}
				// A repeated key: the last value counts.
				if v := baseValue(base, p.name, ""); v != "" {
					for _, c := range []string{`"z"`, "1", "null"} {
						o.compare(t, name, object(append(append([]member(nil), base...), member{p.name, c})), "")
						o.compare(t, name, object(append([]member{{p.name, c}}, base...)), "")
					}
				}
			}
			o.compare(t, name, object(with(base, member{"extra", "1"})), "extra")
			o.compare(t, name, object(with(base, member{"", `""`})), "")
			for i := 0; i < 3000; i++ {
				var ms []member
				for _, p := range props {
					switch rng.IntN(3) {
					case 0:
						if v := baseValue(base, p.name, ""); v != "" {
							ms = append(ms, member{p.name, v})
						}
					case 1:
						ms = append(ms, member{p.name, cands[rng.IntN(len(cands))]})
					}
				}
				if rng.IntN(8) == 0 {
					ms = append(ms, member{"x", cands[rng.IntN(len(cands))]})
				}
				rng.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
				o.compare(t, name, object(ms), "")
			}
		})
	}
}

func baseValue(base []member, key, def string) string {
	for _, m := range base {
		if m.key == key {
			return m.val
		}
	}
	return def
}

// TestValidateGoValues compares the checks with the library on values a
// caller builds from Go numbers rather than from encoding/json.
func TestValidateGoValues(t *testing.T) {
	reg, err := NewRegistry(testSpecs()...)
	if err != nil {
		t.Fatal(err)
	}
	o := newOracle(t, reg)
	values := []any{0, 1, -1, 11, int8(5), int16(-4), int32(99), int64(100), int64(-1 << 62), uint(3), uint8(255), uint16(7),
		uint32(1 << 31), uint64(1 << 63), float32(0.5), float32(1.5), float32(2), 0.5, 2.0, 2.5, 1e300, math.Copysign(0, -1), math.Inf(1), math.NaN(),
		"é", nil, true, map[string]any{}, []any{}, []string{"a"}, struct{}{}}
	for _, name := range []string{"every", NameSleep, "bare"} {
		for _, p := range reg.byKey[name].check.props {
			for _, v := range values {
				var base map[string]any
				dec := json.NewDecoder(strings.NewReader(baselines[name]))
				dec.UseNumber()
				if err := dec.Decode(&base); err != nil {
					t.Fatal(err)
				}
				base[p.name] = v
				werr := o.validate(name, base)
				gerr := reg.Validate(name, base)
				if (werr == nil) != (gerr == nil) {
					t.Errorf("Validate(%s, %s=%#v): error %v, the library says %v", name, p.name, v, gerr, werr)
				}
			}
		}
	}
	if err := reg.Validate(NameSleep, nil); err != nil {
		t.Errorf("Validate(sleep, nil) = %v", err)
	}
	if err := reg.Validate(NameForget, nil); err == nil || !strings.Contains(err.Error(), `"id"`) {
		t.Errorf("Validate(forget, nil) = %v, want id missing", err)
	}
}

// TestRegistrationRefusesUnchecked makes sure a schema keyword or shape
// without a check fails registration, naming the action, the parameter
// and what is not supported.
func TestRegistrationRefusesUnchecked(t *testing.T) {
	type inner struct {
		A string `json:"a"`
	}
	type Embedded struct {
		B string `json:"b"`
	}
	tests := []struct {
		name   string
		params any
		want   []string
	}{
		{"format", struct {
			Mail string `json:"mail" jsonschema:"format=email"`
		}{}, []string{`"mail"`, `"format"`}},
		{"multipleOf", struct {
			N int `json:"n" jsonschema:"multipleOf=2"`
		}{}, []string{`"n"`, `"multipleOf"`}},
		{"extras", struct {
			S string `json:"s" jsonschema_extras:"x-kind=secret"`
		}{}, []string{`"s"`, `"x-kind"`}},
		{"nullable", struct {
			S *string `json:"s" jsonschema:"nullable"`
		}{}, []string{`"s"`, `"oneOf"`}},
		{"oneof type", struct {
			S any `json:"s" jsonschema:"oneof_type=string;integer"`
		}{}, []string{`"s"`, `"oneOf"`}},
		{"nested object", struct {
			In inner `json:"in"`
		}{}, []string{`"in"`, `"object"`}},
		{"array", struct {
			L []string `json:"l"`
		}{}, []string{`"l"`, `"array"`}},
		{"map", struct {
			M map[string]int `json:"m"`
		}{}, []string{`"m"`, `"object"`}},
		{"any", struct {
			V any `json:"v"`
		}{}, []string{`"v"`, "schema true"}},
		{"string option", struct {
			N int `json:"n,string"`
		}{}, []string{"N", `"string"`}},
		{"embedded", struct {
			Embedded
			C string `json:"c"`
		}{}, []string{"Embedded", "embedded"}},
		{"unmarshaler", struct {
			R json.Number `json:"r"`
		}{}, []string{`"r"`, "json.Number"}},
		{"type mismatch", struct {
			N int `json:"n" jsonschema:"type=string"`
		}{}, []string{`"n"`, "int"}},
		{"bound on a string", struct {
			S string `json:"s" jsonschema_extras:"minimum=1"`
		}{}, []string{`"s"`, `"minimum"`, "string"}},
		{"not a struct", 42, []string{"struct"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewRegistry(Spec{Name: "probe", Params: tt.params})
			if err == nil {
				t.Fatal("registered")
			}
			for _, w := range append(tt.want, `"probe"`) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %s", err, w)
				}
			}
		})
	}
}

// TestRefusalsNameTheProblem checks the words the model reads.
func TestRefusalsNameTheProblem(t *testing.T) {
	reg, err := NewRegistry(testSpecs()...)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, params, want string
	}{
		{NameSendMessage, `{"channelId":"1"}`, `"content" is required and missing`},
		{NameSendMessage, `{"channelId":"1","Content":"x"}`, `"Content" is not a parameter; names are case-sensitive: write "content"`},
		{NameSendMessage, `{"channelId":"","content":"x"}`, `"channelId" must not be empty`},
		{NameSendMessage, `{"channelId":null,"content":"x"}`, `"channelId" must be a string, got null`},
		{NameSendMessage, `{"channelId":"1","content":"x","then":"later"}`, `"then" must be one of "next", "end", got "later"`},
		{NameContinue, `{"x":1}`, `"x" is not a parameter; this action takes none`},
		{NameSleep, `{"duration":1.5}`, `"duration" must be an integer, got 1.5`},
		{NameSleep, `{"duration":-1}`, `"duration" must be at least 0, got -1`},
		{NameSleep, `[]`, `the parameters must be an object, got an array`},
		{NameRemember, `{"scope":"user","content":"` + strings.Repeat("é", 501) + `"}`, `"content" must be at most 500 characters long, got 501`},
		{"every", `{"name":"abc","count":1,"id":"x","Plain":"p","code":"A"}`, `"code" must match the regular expression ^[a-z]+$, got "A"`},
		{"every", `{"name":"abc","count":1,"id":"x","Plain":"p","small":100}`, `"small" must be less than 100, got 100`},
		{"every", `{"name":"abc","count":1,"id":"x","Plain":"p","zz":1}`, `"zz" is not a parameter; the parameters are "name", "code"`},
	}
	for _, tt := range tests {
		_, err := reg.Decode(tt.name, json.RawMessage(tt.params))
		if err == nil || !strings.HasPrefix(err.Error(), tt.name+" parameters do not match its schema: ") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Decode(%s, %s) = %v, want %q", tt.name, tt.params, err, tt.want)
		}
	}
}

// FuzzChecksMatchSchemaLibrary compares the checks with the library on
// arbitrary parameter objects.
func FuzzChecksMatchSchemaLibrary(f *testing.F) {
	reg, err := NewRegistry(testSpecs()...)
	if err != nil {
		f.Fatal(err)
	}
	names := reg.Names()
	for i, name := range names {
		f.Add(uint8(i), baselines[name])
	}
	f.Add(uint8(0), `{"channelId":"1","content":"hi","then":"next","Then":"x"}`)
	f.Add(uint8(2), `{"duration":2.0}`)
	o := newOracle(f, reg)
	f.Fuzz(func(t *testing.T, i uint8, raw string) {
		o.compare(t, names[int(i)%len(names)], raw, "")
	})
}

func BenchmarkDecode(b *testing.B) {
	reg, err := NewBuiltinRegistry(Handlers{})
	if err != nil {
		b.Fatal(err)
	}
	raw := json.RawMessage(`{"channelId":"-1001234","content":"Sure, see you at eight tomorrow.","replyTo":"42","then":"end"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := reg.Decode(NameSendMessage, raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	reg, err := NewBuiltinRegistry(Handlers{})
	if err != nil {
		b.Fatal(err)
	}
	m := map[string]any{"scope": "user", "content": "likes tea", "shareable": true}
	b.ReportAllocs()
	for b.Loop() {
		if err := reg.Validate(NameRemember, m); err != nil {
			b.Fatal(err)
		}
	}
}
