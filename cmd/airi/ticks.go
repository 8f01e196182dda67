package main

import (
	"context"
	"fmt"
)

func (a *app) cmdTicksExport(_ context.Context, _ []string) int {
	fmt.Fprintln(a.stderr, "airi ticks: not built yet")
	return exitFailure
}
