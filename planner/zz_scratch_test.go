package planner

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestScratch(t *testing.T) {
	b, err := os.ReadFile("/tmp/scratch/in.txt")
	if err != nil {
		t.Skip()
	}
	p := newTestParser(t)
	for _, raw := range strings.Split(string(b), "\n=====\n") {
		res, err := p.Parse(raw)
		if err != nil {
			t.Logf("%q\n   ERR %v", raw, err)
			continue
		}
		out, _ := json.Marshal(res.Action)
		t.Logf("%q\n   => %s reasoning=%q notes=%q", raw, out, res.Reasoning, res.Notes)
	}
}
