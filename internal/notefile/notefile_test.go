package notefile

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/airi-go/airi/state"
)

func TestRoundTrip(t *testing.T) {
	notes := []state.Note{
		{Scope: state.ScopeGlobal, Text: "the harbour opens at six"},
		{Scope: state.ScopeChannel, Subject: "-1001234567890", Text: "the quiz is on fridays"},
		{Scope: state.ScopeUser, Subject: "4711", Name: "Ada", Shareable: true, Text: "Ada plays the cello"},
		{Scope: state.ScopeUser, Subject: `odd "id"`, Text: "two\nlines"},
		{Scope: state.ScopeGlobal, Text: `"quoted" at the start`},
	}
	var buf bytes.Buffer
	if err := Write(&buf, notes); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `- "4711" ("Ada", shareable): Ada plays the cello`) {
		t.Errorf("export lacks the user line:\n%s", buf.String())
	}
	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	// Write groups by scope: global notes first.
	want := []state.Note{notes[0], notes[4], notes[1], notes[2], notes[3]}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, want)
	}
}

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"note before a section", "- a note\n", "line 1: a note before the first section"},
		{"unknown section", "# airi memory\n## people\n", "line 2: section"},
		{"subject not quoted", "## user\n- 4711: hi\n", "line 2: subject"},
		{"no colon", "## channel\n- \"c\" the text\n", `line 2: want ": "`},
		{"bad flag", "## user\n- \"u\" (loud): hi\n", "line 2: want a quoted name"},
		{"unclosed parentheses", "## user\n- \"u\" (\"Ada\": hi\n", `line 2: want ")"`},
		{"quoted text with more", "## global\n- \"a\" b\n", "line 2: a text that starts with a quote"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			notes, err := Read(strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			if notes != nil {
				t.Errorf("notes = %+v beside an error", notes)
			}
		})
	}
}

func FuzzRead(f *testing.F) {
	f.Add("# airi memory\n\n## global\n- x\n\n## user\n- \"4711\" (\"Ada\", shareable): y\n")
	f.Add("## channel\n- \"c\": \"a\\nb\"\n")
	f.Fuzz(func(t *testing.T, in string) {
		notes, err := Read(strings.NewReader(in))
		if err != nil {
			return
		}
		// What was read writes back to an export that reads the same.
		var buf bytes.Buffer
		if err := Write(&buf, notes); err != nil {
			t.Fatal(err)
		}
		again, err := Read(&buf)
		if err != nil {
			t.Fatalf("re-read of\n%s\n: %v", buf.String(), err)
		}
		if len(again) != len(notes) {
			t.Fatalf("re-read %d notes, want %d", len(again), len(notes))
		}
	})
}
