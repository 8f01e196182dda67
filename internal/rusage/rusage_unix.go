//go:build unix

// Package rusage reads what this process has used of the machine, for the
// load commands and benchmarks that report it.
package rusage

import (
	"runtime"
	"syscall"
	"time"
)

// CPU is the CPU time this process has used, user and system.
func CPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// MaxRSSMB is the peak resident size of this process, in MB.
func MaxRSSMB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return float64(ru.Maxrss) / (1 << 20) // bytes there
	}
	return float64(ru.Maxrss) / 1024
}
