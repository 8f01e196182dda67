//go:build !race

package scheduler_test

// floodSize is the flood of TestReadMeansSeenUnderFlood.
const floodSize = 2000
