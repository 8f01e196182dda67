package settings

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

type conf struct {
	S  string
	N  int
	B  bool
	D  time.Duration
	L  []string
	J  map[string]any
	T  int64
	Rt time.Duration
	F  *float32
}

// node is the value of the one key of the YAML document doc.
func node(t *testing.T, doc string) Value {
	t.Helper()
	es, err := DecodeMap([]byte(doc))
	if err != nil || len(es) != 1 {
		t.Fatalf("decode %q: %v, %d entries", doc, err, len(es))
	}
	return FromYAML(es[0].Value)
}

func TestKinds(t *testing.T) {
	str := func(c *conf) *string { return &c.S }
	for _, tc := range []struct {
		name  string
		parse Parse[conf]
		v     func(t *testing.T) Value
		check func(c conf) bool
		want  string // the refusal; empty: accepted
	}{
		{"text trims", Text(str, nil), func(*testing.T) Value { return FromText("  x ") }, func(c conf) bool { return c.S == "x" }, ""},
		{"text refuses a list", Text(str, nil), func(t *testing.T) Value { return node(t, "k: [a, b]") }, nil, "want a single value"},
		{"one of", OneOf(str, "a", "b", "c"), func(*testing.T) Value { return FromText("d") }, nil, "want a, b or c"},
		{"url", AbsoluteURL(str, "https://x.example"), func(*testing.T) Value { return FromText("x.example") }, nil, "want an absolute URL such as https://x.example"},
		{"whole from YAML", Whole(func(c *conf) *int { return &c.N }, 2), func(t *testing.T) Value { return node(t, "k: 5") }, func(c conf) bool { return c.N == 5 }, ""},
		{"whole below minimum", Whole(func(c *conf) *int { return &c.N }, 2), func(*testing.T) Value { return FromText("1") }, nil, "at least 2"},
		{"whole refuses a YAML float", Whole(func(c *conf) *int { return &c.N }, 0), func(t *testing.T) Value { return node(t, "k: 1.5") }, nil, "whole number"},
		{"boolean from YAML", Boolean(func(c *conf) *bool { return &c.B }), func(t *testing.T) Value { return node(t, "k: true") }, func(c conf) bool { return c.B }, ""},
		{"boolean refuses a number", Boolean(func(c *conf) *bool { return &c.B }), func(t *testing.T) Value { return node(t, "k: 3") }, nil, "want true or false"},
		{"duration zero when allowed", Duration(func(c *conf) *time.Duration { return &c.D }, true), func(t *testing.T) Value { return node(t, "k: 0") }, func(c conf) bool { return c.D == 0 }, ""},
		{"duration zero refused", Duration(func(c *conf) *time.Duration { return &c.D }, false), func(*testing.T) Value { return FromText("0s") }, nil, "positive Go duration"},
		{"gap", Gap(func(c *conf) *time.Duration { return &c.D }), func(*testing.T) Value { return FromText("-1s") }, nil, "such as 0s"},
		{"list from YAML", List(func(c *conf) *[]string { return &c.L }), func(t *testing.T) Value { return node(t, "k: [a, ' ', b]") }, func(c conf) bool { return strings.Join(c.L, ",") == "a,b" }, ""},
		{"list from text", List(func(c *conf) *[]string { return &c.L }), func(*testing.T) Value { return FromText("a,,b ") }, func(c conf) bool { return strings.Join(c.L, ",") == "a,b" }, ""},
		{"json from a YAML map", JSONObject(func(c *conf) *map[string]any { return &c.J }), func(t *testing.T) Value { return node(t, "k: {n: 1}") }, func(c conf) bool { return c.J["n"] == float64(1) }, ""},
		{"json refused", JSONObject(func(c *conf) *map[string]any { return &c.J }), func(*testing.T) Value { return FromText("[1]") }, nil, "want a JSON object"},
		{"tokens none", Custom(func(c *conf) *int64 { return &c.T }, ParseTokens), func(*testing.T) Value { return FromText("none") }, func(c conf) bool { return c.T == 0 }, ""},
		{"retention in days", Retention(func(c *conf) *time.Duration { return &c.Rt }), func(*testing.T) Value { return FromText("7d") }, func(c conf) bool { return c.Rt == 7*24*time.Hour }, ""},
		{"optional leaves the default", Optional(Whole(func(c *conf) *int { return &c.N }, 1)), func(*testing.T) Value { return FromText(" ") }, func(c conf) bool { return c.N == 0 }, ""},
		{"optional parses the rest", Optional(Whole(func(c *conf) *int { return &c.N }, 1)), func(*testing.T) Value { return FromText("0") }, nil, "at least 1"},
		{"number from YAML", Number(func(c *conf) **float32 { return &c.F }, 0, 2), func(t *testing.T) Value { return node(t, "k: 0.5") }, func(c conf) bool { return c.F != nil && *c.F == 0.5 }, ""},
		{"number empty stays unset", Number(func(c *conf) **float32 { return &c.F }, 0, 2), func(*testing.T) Value { return FromText("") }, func(c conf) bool { return c.F == nil }, ""},
		{"number out of range", Number(func(c *conf) **float32 { return &c.F }, 0, 2), func(*testing.T) Value { return FromText("3") }, nil, "want a number from 0 to 2"},
		{"duration at least", DurationAtLeast(func(c *conf) *time.Duration { return &c.D }, time.Second), func(*testing.T) Value { return FromText("500ms") }, nil, "want at least 1s"},
		{"qualified ids", QualifiedIDs(func(c *conf) *[]string { return &c.L }, "telegram:1"), func(*testing.T) Value { return FromText("telegram:1, qq:2") }, func(c conf) bool { return strings.Join(c.L, ",") == "telegram:1,qq:2" }, ""},
		{"qualified ids without a platform", QualifiedIDs(func(c *conf) *[]string { return &c.L }, "telegram:1"), func(*testing.T) Value { return FromText("telegram:1,42") }, nil, "such as telegram:1"},
		{"existing dir", Text(str, ExistingDir("templates")), func(t *testing.T) Value { return FromText(t.TempDir() + "/none") }, nil, "want an existing directory of templates"},
		{"retention refused", Retention(func(c *conf) *time.Duration { return &c.Rt }), func(*testing.T) Value { return FromText("soon") }, nil, "or forever"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c conf
			err := tc.parse(&c, tc.v(t))
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !tc.check(c) {
					t.Errorf("config = %+v", c)
				}
				return
			}
			var w *WantError
			if !errors.As(err, &w) || !strings.Contains(w.Want, tc.want) {
				t.Errorf("err = %v, want a *WantError containing %q", err, tc.want)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	if got := Describe("AIRI_HISTORY", FromText("x"), Want("want a whole number")).Error(); got != `AIRI_HISTORY="x": want a whole number` {
		t.Errorf("Describe = %s", got)
	}
	item := "bad"
	joined := errors.Join(&WantError{Want: "want ids", Item: &item}, errors.New("never echoed"))
	if got := Describe("AIRI_ADMINS", FromText("a:1,bad"), joined).Error(); got != "AIRI_ADMINS=\"bad\": want ids\nAIRI_ADMINS: never echoed" {
		t.Errorf("Describe = %q", got)
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte("[a, b]"), &n); err != nil {
		t.Fatal(err)
	}
	if got := FromYAML(n.Content[0]).String(); got != "[a, b]" {
		t.Errorf("a YAML list is shown as %q", got)
	}
}

func TestDecodeMap(t *testing.T) {
	if es, err := DecodeMap(nil); err != nil || es != nil {
		t.Errorf("empty document: %v, %v", es, err)
	}
	if _, err := DecodeMap([]byte("- a\n")); !errors.Is(err, ErrNotMap) {
		t.Errorf("a list: %v, want ErrNotMap", err)
	}
	es, err := DecodeMap([]byte("b: 1\na:\n"))
	if err != nil || len(es) != 2 || es[0].Key != "b" || es[1].Key != "a" || es[0].Null() || !es[1].Null() {
		t.Errorf("entries %+v, %v: want b then a (null), in file order", es, err)
	}
}

func TestDurationText(t *testing.T) {
	for d, want := range map[time.Duration]string{time.Minute: "1m", 2 * time.Hour: "2h", 800 * time.Millisecond: "800ms", 90 * time.Second: "1m30s"} {
		if got := DurationText(d); got != want {
			t.Errorf("DurationText(%s) = %s, want %s", d, got, want)
		}
	}
}
