package sqlite

// MaxUnchecked is how long another process's write may go unseen by a
// read the memo answers (maxUnchecked).
const MaxUnchecked = maxUnchecked
