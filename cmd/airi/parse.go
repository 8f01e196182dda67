package main

import (
	"context"
	"fmt"
)

func (a *app) cmdParse(_ context.Context, _ []string) int {
	fmt.Fprintln(a.stderr, "airi parse: not built yet")
	return exitFailure
}
