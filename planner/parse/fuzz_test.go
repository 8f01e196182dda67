package parse

import (
	"errors"
	"testing"
)

// FuzzParse checks that no input panics, that every refusal is a
// *Error, and that every accepted action validates against its schema
// and re-marshals to a form that parses back to itself.
func FuzzParse(f *testing.F) {
	for _, c := range loadCorpus(f) {
		f.Add(c.Raw)
	}
	for _, s := range []string{
		`{"action":"send_message","channelId":"1","content":"`,
		`[[[[[[[[[[{"action":"continue"}`,
		`{\"action\":\"sleep\",\"duration\":\"1m\"}`,
		"Action: sleep\nAction Input: {'duration': '2s'",
		`{'a':'\'', "b": “x”}`,
		"\ufeff<think>\n",
	} {
		f.Add(s)
	}
	p := newTestParser(f)
	f.Fuzz(func(t *testing.T, raw string) {
		for _, finish := range []Finish{FinishUnknown, FinishStop, FinishLength} {
			checkParsed(t, p, raw, finish)
		}
	})
}

// checkParsed parses raw as ended by finish and checks the outcome.
func checkParsed(t *testing.T, p *Parser, raw string, finish Finish) {
	t.Helper()
	got, err := p.ParseEnded(raw, finish)
	if err != nil {
		var pe *Error
		if !errors.As(err, &pe) {
			t.Fatalf("refusal %T is not a *Error: %v", err, err)
		}
		if pe.Error() == "" {
			t.Fatal("empty refusal")
		}
		return
	}
	if got.Action.Params == nil {
		t.Fatalf("accepted %q without parameters", got.Action.Name)
	}
	checkAccepted(t, p, got)
}
