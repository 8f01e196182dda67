package parse

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParseEnded(t *testing.T) {
	p := newTestParser(t)
	tests := []struct {
		name   string
		raw    string
		finish Finish
		want   string // the action as JSON, or "" for a refusal
		note   string // a part of a note, or of the refusal
	}{
		{"bare members stop", `"action": "sleep", "duration": 30000`, FinishStop, `{"action":"sleep","duration":30000}`, "closed"},
		{"bare members length", `"action": "sleep", "duration": 30000`, FinishLength, "", `cut off inside "duration"`},
		{"bare members unknown", `"action": "sleep", "duration": 30000`, FinishUnknown, "", `cut off inside "duration"`},
		{"partial key stop", `{"action":"sleep","duration":30000,"reas`, FinishStop, `{"action":"sleep","duration":30000}`, `partial key "reas"`},
		{"partial key length", `{"action":"sleep","duration":30000,"reas`, FinishLength, `{"action":"sleep","duration":30000}`, `partial key "reas"`},
		{"partial key unknown", `{"action":"sleep","duration":30000,"reas`, FinishUnknown, `{"action":"sleep","duration":30000}`, `partial key "reas"`},
		{"key without value", `{"action":"sleep","duration":30000,"reason":`, FinishLength, `{"action":"sleep","duration":30000}`, `partial key "reason"`},
		{"open content stop", `{"action":"send_message","channelId":"1","content":"see you tomorrow`, FinishStop, `{"action":"send_message","channelId":"1","content":"see you tomorrow"}`, "unterminated string"},
		{"open content length", `{"action":"send_message","channelId":"1","content":"see you tomorrow`, FinishLength, "", `cut off in the middle of "content"`},
		{"partial key before required", `{"action":"send_message","channelId":"1","cont`, FinishLength, "", `cut off before "content"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := p.ParseEnded(tt.raw, tt.finish)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("parsed %+v, want a refusal", res.Action)
				}
				if !strings.Contains(err.Error(), tt.note) {
					t.Fatalf("refusal %q, want it to say %q", err, tt.note)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			got := actionJSON(t, res)
			if !reflect.DeepEqual(decodeUseNumber(t, []byte(got)), decodeUseNumber(t, []byte(tt.want))) {
				t.Fatalf("action %s, want %s", got, tt.want)
			}
			if !strings.Contains(strings.Join(res.Notes, "; "), tt.note) {
				t.Fatalf("notes %q, want one saying %q", res.Notes, tt.note)
			}
		})
	}
}

func TestFinishOf(t *testing.T) {
	tests := []struct {
		reason string
		ended  bool
		want   Finish
	}{
		{"stop", true, FinishStop},
		{"length", true, FinishLength},
		{"stop", false, FinishLength},
		{"tool_calls", true, FinishUnknown},
		{"", true, FinishUnknown},
	}
	for _, tt := range tests {
		if got := FinishOf(tt.reason, tt.ended); got != tt.want {
			t.Errorf("FinishOf(%q, %v) = %v, want %v", tt.reason, tt.ended, got, tt.want)
		}
	}
	if _, err := ParseFinish("eof"); err == nil {
		t.Error(`ParseFinish("eof") succeeded, want an error`)
	}
}

// actionJSON renders a parsed action flat, as airi parse prints it.
func actionJSON(t *testing.T, res Result) string {
	t.Helper()
	b, err := json.Marshal(res.Action.Params)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["action"] = res.Action.Name
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
