package main

import (
	"context"
	"fmt"
)

func (a *app) cmdDemo(_ context.Context, _ []string) int {
	fmt.Fprintln(a.stderr, "airi demo: not built yet")
	return exitFailure
}
