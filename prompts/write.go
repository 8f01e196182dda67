package prompts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WriteTemplates copies the templates of src into dir, creating it, and
// returns the paths written. Without force it refuses, before writing
// anything, when one of the files exists. Each file is written to a
// temporary name first and renamed into place only once all are written,
// so a failure leaves no template half-written.
func WriteTemplates(src fs.FS, dir string, force bool) ([]string, error) {
	entries, err := fs.ReadDir(src, ".")
	if err != nil {
		return nil, fmt.Errorf("read embedded templates: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
			names = append(names, e.Name())
		}
	}
	if !force {
		var exist []string
		for _, n := range names {
			p := filepath.Join(dir, n)
			if _, err := os.Lstat(p); err == nil {
				exist = append(exist, p)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
		}
		if len(exist) > 0 {
			return nil, fmt.Errorf("%s already exists (nothing written; --force overwrites it)", strings.Join(exist, ", "))
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("make %s: %w", dir, err)
	}
	var temps []string
	cleanup := func() {
		for _, t := range temps {
			_ = os.Remove(t)
		}
	}
	for _, n := range names {
		body, err := fs.ReadFile(src, n)
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("read embedded %s: %w", n, err)
		}
		f, err := os.CreateTemp(dir, "."+n+".*")
		if err != nil {
			cleanup()
			return nil, err
		}
		temps = append(temps, f.Name())
		_, werr := f.Write(body)
		cerr := f.Close()
		if err := errors.Join(werr, cerr); err != nil {
			cleanup()
			return nil, fmt.Errorf("write %s: %w", filepath.Join(dir, n), err)
		}
		if err := os.Chmod(f.Name(), 0o644); err != nil {
			cleanup()
			return nil, err
		}
	}
	var written []string
	for i, n := range names {
		p := filepath.Join(dir, n)
		if err := os.Rename(temps[i], p); err != nil {
			cleanup()
			return written, fmt.Errorf("write %s: %w", p, err)
		}
		written = append(written, p)
	}
	return written, nil
}
