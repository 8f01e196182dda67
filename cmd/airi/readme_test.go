package main

import (
	"bufio"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeSetting is one variable of the configuration table in
// docs/configuration.md and the default the table gives it.
type readmeSetting struct {
	name string
	// value is the default written as a value (`800ms`); empty when the
	// table describes the default in words (none, all, the provider's),
	// which means the variable is unset.
	value string
	line  int
}

var backticked = regexp.MustCompile("`([^`]*)`")

// readmeSettings reads the configuration table of docs/configuration.md.
func readmeSettings(t *testing.T) []readmeSetting {
	t.Helper()
	f, err := os.Open("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []readmeSetting
	in := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## Configuration"
			continue
		}
		if !in || !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) < 3 {
			t.Fatalf("docs/configuration.md:%d: want | variable | default | meaning |: %q", n, line)
		}
		var names []string
		for _, m := range backticked.FindAllStringSubmatch(cells[0], -1) {
			names = append(names, m[1])
		}
		defaults := []string{strings.TrimSpace(cells[1])}
		if parts := strings.Split(defaults[0], ", "); len(names) > 1 && len(parts) == len(names) {
			defaults = parts
		}
		for i, name := range names {
			d := defaults[0]
			if len(defaults) == len(names) {
				d = defaults[i]
			}
			s := readmeSetting{name: name, line: n}
			if m := backticked.FindStringSubmatch(d); m != nil && m[0] == d {
				s.value = m[1]
			}
			out = append(out, s)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReadmeConfigurationTable keeps the configuration table of
// docs/configuration.md true: it lists every setting and no other, and
// each default it gives is the one in the code (a setting given its
// documented default is configured
// exactly as with no setting at all).
func TestReadmeConfigurationTable(t *testing.T) {
	settings := readmeSettings(t)
	var listed []string
	for _, s := range settings {
		listed = append(listed, s.name)
	}
	for _, n := range settingNames {
		if !slices.Contains(listed, n) {
			t.Errorf("docs/configuration.md: the configuration table does not list %s", n)
		}
	}
	want := defaultConfig()
	for _, s := range settings {
		t.Run(s.name, func(t *testing.T) {
			if !slices.Contains(settingNames, s.name) {
				t.Fatalf("docs/configuration.md:%d lists %s, which is not a setting", s.line, s.name)
			}
			got, err := parseConfig(map[string]string{s.name: s.value})
			if err != nil {
				t.Fatalf("docs/configuration.md:%d: the default of %s, %q, is refused: %v", s.line, s.name, s.value, err)
			}
			if !reflect.DeepEqual(got, want) {
				what := "`" + s.value + "`"
				if s.value == "" {
					what = "unset"
				}
				t.Errorf("docs/configuration.md:%d gives %s the default %s, the code another:\ndocs:   %+v\ncode:   %+v", s.line, s.name, what, got, want)
			}
		})
	}
}
