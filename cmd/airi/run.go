package main

import (
	"context"
	"fmt"
)

func (a *app) cmdRun(_ context.Context, _ []string) int {
	fmt.Fprintln(a.stderr, "airi run: not built yet")
	return exitFailure
}
