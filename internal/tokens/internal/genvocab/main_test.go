package main

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
)

// TestFilesUpToDate regenerates the vocabulary in memory and checks the
// committed files are byte for byte what it gives.
func TestFilesUpToDate(t *testing.T) {
	tokenBytes, table, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name string
		want []byte
	}{
		{"o200k.tokens", tokenBytes},
		{"o200k.table", table},
	} {
		got, err := os.ReadFile(filepath.Join("..", "vocab", f.name))
		if err != nil {
			t.Fatal(err)
		}
		if sha256.Sum256(got) != sha256.Sum256(f.want) {
			t.Errorf("%s differs from what genvocab writes (%d bytes, want %d); run go generate ./internal/tokens/...", f.name, len(got), len(f.want))
		}
		t.Logf("%s: %d bytes", f.name, len(got))
	}
}
