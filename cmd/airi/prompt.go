package main

import (
	"context"
	"fmt"
)

func (a *app) cmdPromptRender(_ context.Context, _ []string) int {
	fmt.Fprintln(a.stderr, "airi prompt: not built yet")
	return exitFailure
}
