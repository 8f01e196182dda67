package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryLinksNoSchemaLibrary keeps the JSON schema validation library
// out of the binary: its initialisation alone costs every start tens of
// milliseconds and megabytes of memory, and the action registry checks
// parameters without it. It remains a dependency of tests, which compare
// the registry's checks with it.
func TestBinaryLinksNoSchemaLibrary(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list dependencies: %v", err)
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed only %q", deps)
	}
	for _, dep := range deps {
		if strings.HasPrefix(dep, "github.com/santhosh-tekuri/") {
			t.Errorf("the binary depends on %s", dep)
		}
	}
}
