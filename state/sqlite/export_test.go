package sqlite

import "time"

// Unchecked makes s's next read the memo would answer check for other
// processes' writes first, as it does once maxUnchecked passed since the
// last check.
func Unchecked(s *Store) {
	s.memo.mu.Lock()
	defer s.memo.mu.Unlock()
	s.memo.checked = time.Time{}
}
