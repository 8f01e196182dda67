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

// readmeSetting is one variable of the README's configuration table and
// the default the table gives it.
type readmeSetting struct {
	name string
	// value is the default written as a value (`800ms`); empty when the
	// table describes the default in words (none, all, the provider's),
	// which means the variable is unset.
	value string
	line  int
}

var backticked = regexp.MustCompile("`([^`]*)`")

// readmeSettings reads the configuration table of README.md.
func readmeSettings(t *testing.T) []readmeSetting {
	t.Helper()
	f, err := os.Open("../../README.md")
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
			t.Fatalf("README.md:%d: want | variable | default | meaning |: %q", n, line)
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

// TestReadmeConfigurationTable keeps the README's configuration table
// true to the settings table: it lists every setting and no other, each
// default it gives is the table's (a setting given its README default is
// configured exactly as with no setting at all), and a default described
// in words is one the table leaves unset.
func TestReadmeConfigurationTable(t *testing.T) {
	settings := readmeSettings(t)
	listed := map[string]bool{}
	for _, s := range settings {
		listed[s.name] = true
	}
	for _, s := range settingsTable {
		if !listed[s.name] {
			t.Errorf("README.md: the configuration table does not list %s", s.name)
		}
	}
	want := defaultConfig()
	for _, r := range settings {
		t.Run(r.name, func(t *testing.T) {
			i := slices.IndexFunc(settingsTable, func(s setting) bool { return s.name == r.name })
			if i < 0 {
				t.Fatalf("README.md:%d lists %s, which is not a setting", r.line, r.name)
			}
			s := settingsTable[i]
			switch {
			case r.value == "" && s.def != "":
				t.Errorf("README.md:%d describes the default of %s in words; the table sets it to `%s`", r.line, r.name, s.def)
			case r.value != "" && s.def == "":
				t.Errorf("README.md:%d gives %s the default `%s`; the table leaves it unset (%s)", r.line, r.name, r.value, s.unset)
			}
			got, err := parseConfig(map[string]string{r.name: r.value})
			if err != nil {
				t.Fatalf("README.md:%d: the default of %s, %q, is refused: %v", r.line, r.name, r.value, err)
			}
			if !reflect.DeepEqual(got, want) {
				what := "`" + r.value + "`"
				if r.value == "" {
					what = "unset"
				}
				t.Errorf("README.md:%d gives %s the default %s, the code another:\nREADME: %+v\ncode:   %+v", r.line, r.name, what, got, want)
			}
		})
	}
}
