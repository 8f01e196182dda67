package replay

import (
	"os"
	"path/filepath"
)

// WriteFile replaces the session file at path with sessions, atomically:
// a failure leaves the file as it was, and it keeps its permissions.
func WriteFile(path string, sessions []*Session) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".airi-replay-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	for _, s := range sessions {
		if err := Write(tmp, s); err != nil {
			tmp.Close()
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if st, err := os.Stat(path); err == nil {
		_ = os.Chmod(tmp.Name(), st.Mode().Perm())
	}
	return os.Rename(tmp.Name(), path)
}
