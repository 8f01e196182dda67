package main

import (
	"bufio"
	"io"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeSetting is one variable of docs/configuration.md's table and
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

// readmeSettings reads the configuration table of docs/configuration.md.
func readmeSettings(t *testing.T) []readmeSetting {
	t.Helper()
	f, err := os.Open("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return tableSettings(t, f, false)
}

// tableSettings reads a markdown table of settings: the rows of the
// "## Configuration" section of a document, or every row when whole.
func tableSettings(t *testing.T, r io.Reader, whole bool) []readmeSetting {
	t.Helper()
	var out []readmeSetting
	in := whole
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if !whole && strings.HasPrefix(line, "## ") {
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

// TestReadmeConfigurationTable keeps docs/configuration.md's table
// true to the settings table: it lists every setting and no other, each
// default it gives is the table's (a setting given its documented default is
// configured exactly as with no setting at all), and a default described
// in words is one the table leaves unset.
func TestReadmeConfigurationTable(t *testing.T) {
	checkSettingsDocs(t, "docs/configuration.md", readmeSettings(t))
}

// TestConfigDocs checks the table airi config docs prints as the docs'
// is checked.
func TestConfigDocs(t *testing.T) {
	code, stdout, stderr := runCommand(t, nil, "config", "docs")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := tableSettings(t, strings.NewReader(stdout), true)
	if len(rows) != len(settingsTable) {
		t.Errorf("%d rows for %d settings", len(rows), len(settingsTable))
	}
	checkSettingsDocs(t, "airi config docs", rows)
}

// checkSettingsDocs compares a documented table of settings with the
// settings table.
func checkSettingsDocs(t *testing.T, source string, settings []readmeSetting) {
	t.Helper()
	listed := map[string]bool{}
	for _, s := range settings {
		listed[s.name] = true
	}
	for _, s := range settingsTable {
		if !listed[s.name] {
			t.Errorf("%s: the configuration table does not list %s", source, s.name)
		}
	}
	want := defaultConfig()
	for _, r := range settings {
		t.Run(r.name, func(t *testing.T) {
			i := slices.IndexFunc(settingsTable, func(s setting) bool { return s.name == r.name })
			if i < 0 {
				t.Fatalf("%s:%d lists %s, which is not a setting", source, r.line, r.name)
			}
			s := settingsTable[i]
			switch {
			case r.value == "" && s.def != "":
				t.Errorf("%s:%d describes the default of %s in words; the table sets it to `%s`", source, r.line, r.name, s.def)
			case r.value != "" && s.def == "":
				t.Errorf("%s:%d gives %s the default `%s`; the table leaves it unset (%s)", source, r.line, r.name, r.value, s.unset)
			}
			got, err := parseConfig(map[string]string{r.name: r.value})
			if err != nil {
				t.Fatalf("%s:%d: the default of %s, %q, is refused: %v", source, r.line, r.name, r.value, err)
			}
			if !reflect.DeepEqual(got, want) {
				what := "`" + r.value + "`"
				if r.value == "" {
					what = "unset"
				}
				t.Errorf("%s:%d gives %s the default %s, the code another:\ndocumented: %+v\ncode:   %+v", source, r.line, r.name, what, got, want)
			}
		})
	}
}
