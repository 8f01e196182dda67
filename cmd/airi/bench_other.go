//go:build !unix

package main

import "time"

// cpuTime is not measured on this system.
func cpuTime() time.Duration { return 0 }

// maxRSSMB is not measured on this system.
func maxRSSMB() float64 { return 0 }
