//go:build race

package scheduler_test

// floodSize is the flood of TestReadMeansSeenUnderFlood: smaller under the
// race detector, which slows token counting tenfold.
const floodSize = 300
