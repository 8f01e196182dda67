package adapters_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestAdaptersDependOnDomainOnly keeps the adapters free of the action
// catalogue and its JSON Schema libraries: an adapter needs the domain
// types and the Inbox, nothing of how actions are described or validated.
func TestAdaptersDependOnDomainOnly(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list dependencies: %v", err)
	}
	for _, pkg := range []string{"./console", "./satori", "./telegram"} {
		t.Run(strings.TrimPrefix(pkg, "./"), func(t *testing.T) {
			out, err := exec.Command(goBin, "list", "-deps", pkg).CombinedOutput()
			if err != nil {
				t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
			}
			for _, dep := range strings.Fields(string(out)) {
				if dep == "github.com/airi-go/airi/actions" ||
					strings.HasPrefix(dep, "github.com/airi-go/airi/scheduler") ||
					strings.HasPrefix(dep, "github.com/airi-go/airi/planner") ||
					strings.Contains(dep, "jsonschema") {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		})
	}
}
