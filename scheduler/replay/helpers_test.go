package replay_test

import (
	"io/fs"
	"os"
	"testing"
)

func fsRead(fsys fs.FS, name string) (string, error) {
	b, err := fs.ReadFile(fsys, name)
	return string(b), err
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
