//go:build !unix

// Package rusage reads what this process has used of the machine, for the
// load commands and benchmarks that report it.
package rusage

import "time"

// CPU is not measured on this system.
func CPU() time.Duration { return 0 }

// MaxRSSMB is not measured on this system.
func MaxRSSMB() float64 { return 0 }
