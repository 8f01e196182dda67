//go:build !unix

package sqlite

import "os"

// tryLock cannot lock on this system: every process gets the database.
func tryLock(*os.File) (bool, error) { return true, nil }

func unlock(*os.File) error { return nil }
