package main

import (
	"context"
	"fmt"
)

func (a *app) cmdReplay(_ context.Context, _ []string) int {
	fmt.Fprintln(a.stderr, "airi replay: not built yet")
	return exitFailure
}
