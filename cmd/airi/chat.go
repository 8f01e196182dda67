package main

import (
	"context"
	"fmt"
)

func (a *app) cmdChat(_ context.Context, _ []string) int {
	fmt.Fprintln(a.stderr, "airi chat: not built yet")
	return exitFailure
}
