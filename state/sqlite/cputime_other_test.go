//go:build !unix

package sqlite

import "time"

// processCPU is not measured here.
func processCPU() time.Duration { return 0 }
