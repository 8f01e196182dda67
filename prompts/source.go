package prompts

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/zap"
)

// Set is one consistent version of every template: the system sections and
// the state message template. A Set never changes once loaded.
type Set struct {
	// Version increases with every successful load of a Source.
	Version uint64
	// Sections are the system sections sorted by order, then name.
	Sections []*Template
	// State renders the state message.
	State *Template
}

// Lookup returns the template of a section, or nil.
func (s *Set) Lookup(section string) *Template {
	if section == StateSection {
		return s.State
	}
	for _, t := range s.Sections {
		if t.Section == section {
			return t
		}
	}
	return nil
}

// BotName returns the character name a template declares (the persona's
// front matter `name`), or "".
func (s *Set) BotName() string {
	for _, t := range s.Sections {
		if t.Name != "" {
			return t.Name
		}
	}
	return ""
}

// reloadDebounce gathers the burst of events an editor makes when it saves.
const reloadDebounce = 100 * time.Millisecond

// Source holds the current template set: the embedded defaults overridden
// file by file by a directory on disk. It is safe for concurrent use.
type Source struct {
	dir    string
	logger *zap.Logger

	cur atomic.Pointer[Set]

	// reloadMu keeps reloads in order, so an older read of the files
	// never replaces a newer one.
	reloadMu sync.Mutex

	mu       sync.Mutex
	version  uint64
	err      error
	reloaded chan struct{}
	// started is closed once Watch watches the directory.
	started     chan struct{}
	startedOnce sync.Once
}

// Load reads the embedded templates and, when dir is not empty, the
// overrides in dir. A template that does not parse or render is an error
// naming its file and line.
func Load(dir string, logger *zap.Logger) (*Source, error) {
	if logger == nil {
		logger = zap.NewNop()
	}
	s := &Source{dir: dir, logger: logger.Named("prompts"), reloaded: make(chan struct{}), started: make(chan struct{})}
	set, err := loadSet(dir)
	if err != nil {
		if dir != "" {
			return nil, fmt.Errorf("load prompts %q: %w", dir, err)
		}
		return nil, fmt.Errorf("load prompts: %w", err)
	}
	s.version = 1
	set.Version = 1
	s.cur.Store(set)
	return s, nil
}

// Dir returns the override directory, or "" when only the embedded
// templates are used.
func (s *Source) Dir() string { return s.dir }

// Current returns the template set in use: the last one that loaded
// without error.
func (s *Source) Current() *Set { return s.cur.Load() }

// Err returns the error of the last reload, or nil when it succeeded.
func (s *Source) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Reloaded returns a channel closed at the end of the next reload attempt,
// successful or not.
func (s *Source) Reloaded() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reloaded
}

// Reload reads the templates again. On error the previous set stays in use
// and the error (naming file and line) is returned and logged.
func (s *Source) Reload() error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	set, err := loadSet(s.dir)
	s.mu.Lock()
	if err == nil {
		s.version++
		set.Version = s.version
		s.cur.Store(set)
	}
	s.err = err
	done := s.reloaded
	s.reloaded = make(chan struct{})
	s.mu.Unlock()
	close(done)
	if err != nil {
		s.logger.Error("prompt templates are broken; keeping the previous version", zap.String("dir", s.dir), zap.Error(err))
		return fmt.Errorf("reload prompts %q: %w", s.dir, err)
	}
	s.logger.Info("prompt templates reloaded", zap.String("dir", s.dir), zap.Uint64("version", set.Version))
	return nil
}

// Watch reloads the templates when files in the override directory change
// and keeps the last good set when a change breaks one. It blocks until ctx
// ends and then returns nil; without a directory it only waits.
func (s *Source) Watch(ctx context.Context) error {
	if s.dir == "" {
		s.startedOnce.Do(func() { close(s.started) })
		<-ctx.Done()
		return nil
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch prompts %q: %w", s.dir, err)
	}
	defer w.Close()
	if err := w.Add(s.dir); err != nil {
		return fmt.Errorf("watch prompts %q: %w", s.dir, err)
	}
	s.startedOnce.Do(func() { close(s.started) })
	s.logger.Info("watching prompt templates", zap.String("dir", s.dir))
	timer := time.NewTimer(reloadDebounce)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			// Kubernetes mounts a ConfigMap as symlinks into a "..data"
			// directory it swaps on update; that swap is the only event.
			if base := filepath.Base(ev.Name); isTemplateFile(base) || strings.HasPrefix(base, "..") {
				timer.Reset(reloadDebounce)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			s.logger.Warn("watching prompt templates", zap.String("dir", s.dir), zap.Error(err))
		case <-timer.C:
			_ = s.Reload() // logged by Reload; the previous set stays in use
		}
	}
}

func isTemplateFile(name string) bool {
	return strings.HasSuffix(name, ".md") && !strings.HasPrefix(name, ".") && !strings.HasPrefix(name, "#")
}

// loadSet parses the embedded templates, applies the overrides in dir and
// trial-renders the result.
func loadSet(dir string) (*Set, error) {
	base, err := parseFS(Embedded(), func(name string) string { return "embedded:" + name })
	if err != nil {
		return nil, err
	}
	var over []*Template
	if dir != "" {
		over, err = parseFS(os.DirFS(dir), func(name string) string { return filepath.Join(dir, name) })
		if err != nil {
			return nil, err
		}
	}
	merged, err := merge(base, over)
	if err != nil {
		return nil, err
	}
	set := &Set{}
	for _, t := range merged {
		if t.Section == StateSection {
			set.State = t
			continue
		}
		set.Sections = append(set.Sections, t)
	}
	if set.State == nil {
		return nil, errors.New("no template declares the state section")
	}
	sort.SliceStable(set.Sections, func(i, j int) bool {
		a, b := set.Sections[i], set.Sections[j]
		if a.Order != b.Order {
			return a.Order < b.Order
		}
		return a.Section < b.Section
	})
	var errs []error
	for _, t := range merged {
		// Full and empty data: a template that indexes a list or reads a
		// field that is empty in a quiet channel fails here, not at a tick.
		quiet := Data{Bot: Bot{Name: "Juni"}, Platform: "satori", Channel: Channel{ID: "1"}, Now: SampleData("satori", true).Now}
		for _, d := range []Data{SampleData("telegram", true), SampleData("console", false), quiet} {
			if _, err := t.Render(d); err != nil {
				errs = append(errs, err)
				break
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return set, nil
}

func parseFS(fsys fs.FS, path func(string) string) ([]*Template, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("read templates: %w", err)
	}
	var out []*Template
	var errs []error
	for _, e := range entries {
		if e.IsDir() || !isTemplateFile(e.Name()) {
			continue
		}
		src, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			errs = append(errs, fmt.Errorf("read %s: %w", path(e.Name()), err))
			continue
		}
		t, err := Parse(e.Name(), path(e.Name()), src)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, t)
	}
	return out, errors.Join(errs...)
}

// merge applies overrides to the defaults: an override replaces the default
// with the same file name, or else the one declaring the same section, and
// inherits its order; any other file adds a section and must declare one.
func merge(base, over []*Template) ([]*Template, error) {
	out := append([]*Template(nil), base...)
	find := func(match func(*Template) bool) int {
		for i, t := range out {
			if match(t) {
				return i
			}
		}
		return -1
	}
	var errs []error
	claimed := map[string]string{} // section → override path
	for _, o := range over {
		i := find(func(t *Template) bool { return t.File == o.File && strings.HasPrefix(t.Path, "embedded:") })
		if i < 0 {
			i = find(func(t *Template) bool { return t.Section == o.Section && strings.HasPrefix(t.Path, "embedded:") })
		}
		if prev, dup := claimed[o.Section]; dup {
			errs = append(errs, &TemplateError{Path: o.Path, Line: 1, Err: fmt.Errorf("section %q is also declared by %s", o.Section, prev)})
			continue
		}
		claimed[o.Section] = o.Path
		if i >= 0 {
			if !o.HasOrder {
				o.Order, o.HasOrder = out[i].Order, true
			}
			out[i] = o
			continue
		}
		if !o.HasOrder && o.Section != StateSection {
			errs = append(errs, &TemplateError{Path: o.Path, Line: 1, Err: fmt.Errorf("front matter: order is required for the new section %q", o.Section)})
			continue
		}
		out = append(out, o)
	}
	seen := map[string]string{}
	for _, t := range out {
		if prev, dup := seen[t.Section]; dup {
			errs = append(errs, &TemplateError{Path: t.Path, Line: 1, Err: fmt.Errorf("section %q is also declared by %s", t.Section, prev)})
		}
		seen[t.Section] = t.Path
	}
	return out, errors.Join(errs...)
}
