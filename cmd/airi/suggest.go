package main

import "github.com/airi-go/airi/internal/settings"

// closest is the name of candidates nearest to s, if near enough to be
// the likely intent (settings.Closest).
func closest(s string, candidates []string) (string, bool) { return settings.Closest(s, candidates) }

// didYouMean is " (did you mean X?)" for the candidate closest to s, or
// "" when none is close.
func didYouMean(s string, candidates []string) string { return settings.DidYouMean(s, candidates) }
