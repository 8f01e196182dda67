package actions

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	validator "github.com/santhosh-tekuri/jsonschema/v6"
)

// The answer schema given to providers in JSON-schema mode accepts a send
// that says what follows it, and only the values the parser accepts.
func TestAnswerSchemaAcceptsThen(t *testing.T) {
	r, err := NewBuiltinRegistry(Handlers{})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := validator.UnmarshalJSON(bytes.NewReader(r.AnswerSchema()))
	if err != nil {
		t.Fatal(err)
	}
	c := validator.NewCompiler()
	if err := c.AddResource("answer.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("answer.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		answer string
		ok     bool
	}{
		{`{"action":"send_message","channelId":"1","content":"hi"}`, true},
		{`{"action":"send_message","channelId":"1","content":"hi","then":"next"}`, true},
		{`{"action":"send_message","channelId":"1","content":"hi","then":"end"}`, true},
		{`{"action":"send_message","channelId":"1","content":"hi","then":"later"}`, false},
		{`{"action":"send_message","channelId":"1","content":"hi","then":true}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.answer, func(t *testing.T) {
			inst, err := validator.UnmarshalJSON(strings.NewReader(tc.answer))
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(inst); (err == nil) != tc.ok {
				t.Errorf("valid = %v, want %v (%v)", err == nil, tc.ok, err)
			}
		})
	}
}

// then is a parameter of send_message and react only, the actions that
// end the turn by default: the catalog shows it there with its values,
// and every other action decides what follows by itself.
func TestThenBelongsToSendOnly(t *testing.T) {
	r, err := NewBuiltinRegistry(Handlers{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range r.Catalog() {
		var sch struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(e.Schema, &sch); err != nil {
			t.Fatal(err)
		}
		then, has := sch.Properties["then"]
		if has != (e.Name == NameSendMessage || e.Name == NameReact) {
			t.Errorf("%s: then present = %v", e.Name, has)
		}
		if has && strings.Join(then.Enum, ",") != ThenNext+","+ThenEnd {
			t.Errorf("%s: then takes %q", e.Name, then.Enum)
		}
	}
	a, err := r.Decode(NameSendMessage, json.RawMessage(`{"channelId":"1","content":"hi","then":"next"}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"action":"send_message","channelId":"1","content":"hi","then":"next"}`; string(out) != want {
		t.Errorf("flat form %s, want %s", out, want)
	}
}
