package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"

	"github.com/airi-go/airi/actions"
)

func (a *app) cmdActions(_ context.Context, args []string) int {
	fs := flag.NewFlagSet("actions", flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	if code, ok := a.parseFlags(fs, args); !ok {
		return code
	}
	reg, err := actions.NewBuiltinRegistry(actions.Handlers{})
	if err != nil {
		fmt.Fprintln(a.stderr, "airi actions:", err)
		return exitFailure
	}
	out, err := json.MarshalIndent(reg.Catalog(), "", "  ")
	if err != nil {
		fmt.Fprintln(a.stderr, "airi actions:", err)
		return exitFailure
	}
	fmt.Fprintln(a.stdout, string(out))
	return exitOK
}
