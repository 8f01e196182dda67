package prompts

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"
)

func writeFile(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestEmbeddedDefaults(t *testing.T) {
	s, err := Load("", zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	set := s.Current()
	for _, name := range []string{"persona", "protocol", "group", "direct", "platform-telegram", "platform-satori", "platform-console"} {
		if set.Lookup(name) == nil {
			t.Errorf("default section %s missing", name)
		}
	}
	if set.State == nil || set.Lookup(StateSection) != set.State {
		t.Error("state template missing")
	}
	if set.BotName() != "Juni" {
		t.Errorf("persona name = %q, want Juni", set.BotName())
	}
	for i := 1; i < len(set.Sections); i++ {
		a, b := set.Sections[i-1], set.Sections[i]
		if a.Order > b.Order || (a.Order == b.Order && a.Section > b.Section) {
			t.Errorf("sections not sorted by order then name: %s(%d) before %s(%d)", a.Section, a.Order, b.Section, b.Order)
		}
	}
	for _, tm := range set.Sections {
		if tm.Order < 0 || tm.Order > 399 {
			t.Errorf("%s: order %d outside the bands 0-399", tm.Section, tm.Order)
		}
	}
}

func TestOverrides(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		check   func(t *testing.T, set *Set)
		wantErr string
	}{
		{name: "same file name replaces and inherits the order",
			files: map[string]string{"persona.md": "---\nsection: persona\nname: Pell\n---\nYou are Pell, a lighthouse cat.\n"},
			check: func(t *testing.T, set *Set) {
				p := set.Lookup("persona")
				if p == nil || p.Order != 10 || !strings.HasSuffix(p.Path, "persona.md") || strings.HasPrefix(p.Path, "embedded:") {
					t.Fatalf("persona = %+v", p)
				}
				if set.BotName() != "Pell" {
					t.Errorf("bot name = %q", set.BotName())
				}
			}},
		{name: "same section from another file replaces",
			files: map[string]string{"tg.md": "---\nsection: platform-telegram\n---\nTelegram: be brief.\n"},
			check: func(t *testing.T, set *Set) {
				p := set.Lookup("platform-telegram")
				if p == nil || p.Order != 320 || p.File != "tg.md" {
					t.Fatalf("platform-telegram = %+v", p)
				}
				if p.When.Platform != nil {
					t.Errorf("override kept the default's when: %v", p.When)
				}
				for _, s := range set.Sections {
					if s.File == "telegram.md" {
						t.Error("default telegram.md still present")
					}
				}
			}},
		{name: "own order wins",
			files: map[string]string{"persona.md": "---\nsection: persona\norder: 50\n---\nx\n"},
			check: func(t *testing.T, set *Set) {
				if p := set.Lookup("persona"); p.Order != 50 {
					t.Errorf("order = %d", p.Order)
				}
			}},
		{name: "new file adds a section",
			files: map[string]string{"memory.md": "---\nsection: memory\norder: 210\n---\nRemember: {{.Channel.Title}}\n", "notes.txt": "ignored", ".hidden.md": "ignored"},
			check: func(t *testing.T, set *Set) {
				if set.Lookup("memory") == nil || set.Lookup("persona") == nil {
					t.Fatal("memory not added or persona lost")
				}
			}},
		{name: "state message can be replaced",
			files: map[string]string{"state.md": "---\nsection: state\n---\nnow {{.Now}}\n"},
			check: func(t *testing.T, set *Set) {
				if !strings.HasSuffix(set.State.Path, "state.md") || strings.HasPrefix(set.State.Path, "embedded:") {
					t.Errorf("state = %s", set.State.Path)
				}
			}},
		{name: "new section needs an order",
			files:   map[string]string{"extra.md": "---\nsection: extra\n---\nx\n"},
			wantErr: "extra.md:1: front matter: order is required"},
		{name: "two files for one section",
			files:   map[string]string{"a.md": "---\nsection: persona\n---\nx\n", "b.md": "---\nsection: persona\n---\ny\n"},
			wantErr: `section "persona" is also declared by`},
		{name: "a template failing on a quiet channel fails at load",
			files:   map[string]string{"group.md": "---\nsection: group\n---\nFirst: {{index .Channel.Members 0}}\n"},
			wantErr: "group.md:4: "},
		{name: "unknown field fails at load with its line",
			files:   map[string]string{"persona.md": "---\nsection: persona\n---\nYou are\n{{.Bot.Nickname}}\n"},
			wantErr: "persona.md:5: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range tt.files {
				writeFile(t, dir, name, body)
			}
			s, err := Load(dir, zaptest.NewLogger(t))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, s.Current())
		})
	}
}

// waitFor waits until cond holds, waking on each reload of s.
func waitFor(t *testing.T, s *Source, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		ch := s.Reloaded()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func TestWatchKeepsLastGoodSet(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "persona.md", "---\nsection: persona\n---\nYou are Pell.\n")
	s, err := Load(dir, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	var watchErr error
	go func() {
		defer wg.Done()
		watchErr = s.Watch(ctx)
	}()
	defer func() {
		cancel()
		wg.Wait()
		if watchErr != nil {
			t.Errorf("watch: %v", watchErr)
		}
	}()
	<-s.started
	first := s.Current()

	persona := func() string {
		out, err := s.Current().Lookup("persona").Render(SampleData("console", false))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}

	// A broken edit: reported with file and line, the previous set stays.
	writeFile(t, dir, "persona.md", "---\nsection: persona\n---\nYou are Pell.\n{{.Bot.Name)}}\n")
	waitFor(t, s, "the broken template to be reported", func() bool { return s.Err() != nil })
	if err := s.Err(); !strings.Contains(err.Error(), filepath.Join(dir, "persona.md")+":5: ") {
		t.Errorf("reload error %q does not name persona.md:5", err)
	}
	if s.Current() != first || persona() != "You are Pell." {
		t.Fatal("a broken edit replaced the last good set")
	}

	// The fix is picked up.
	writeFile(t, dir, "persona.md", "---\nsection: persona\n---\nYou are Pell, fixed.\n")
	waitFor(t, s, "the fixed template", func() bool { return s.Err() == nil && s.Current() != first })
	if got := persona(); got != "You are Pell, fixed." {
		t.Errorf("persona = %q after the fix", got)
	}
	if s.Current().Version <= first.Version {
		t.Errorf("version %d did not increase from %d", s.Current().Version, first.Version)
	}

	// A new file adds a section; removing it takes it away again.
	writeFile(t, dir, "tides.md", "---\nsection: tides\norder: 210\n---\nhigh water at six\n")
	waitFor(t, s, "the new section", func() bool { return s.Current().Lookup("tides") != nil })
	if err := os.Remove(filepath.Join(dir, "tides.md")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "the removed section", func() bool { return s.Current().Lookup("tides") == nil })
}

func TestWatchWithoutDirReturnsOnCancel(t *testing.T) {
	s, err := Load("", zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Watch(ctx) }()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestReloadDirectly(t *testing.T) {
	dir := t.TempDir()
	s, err := Load(dir, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "group.md", "---\nsection: group\n---\n{{end}}\n")
	if err := s.Reload(); err == nil || !strings.Contains(err.Error(), "group.md:4: ") {
		t.Fatalf("reload error = %v, want group.md:4", err)
	}
	if s.Current().Lookup("group").Path != "embedded:group.md" {
		t.Error("broken override replaced the default")
	}
}

// A Kubernetes ConfigMap volume updates by swapping a "..data" symlink;
// the template files themselves are symlinks that never change.
func TestWatchConfigMapSwap(t *testing.T) {
	dir := t.TempDir()
	version := func(name, persona string) {
		t.Helper()
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, name), "persona.md", "---\nsection: persona\n---\n"+persona+"\n")
	}
	version("..v1", "You are Pell.")
	if err := os.Symlink("..v1", filepath.Join(dir, "..data")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	if err := os.Symlink(filepath.Join("..data", "persona.md"), filepath.Join(dir, "persona.md")); err != nil {
		t.Fatal(err)
	}
	s, err := Load(dir, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Watch(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	<-s.started
	persona := func() string {
		out, err := s.Current().Lookup("persona").Render(SampleData("console", false))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if persona() != "You are Pell." {
		t.Fatalf("persona = %q", persona())
	}
	version("..v2", "You are Pell, updated.")
	if err := os.Symlink("..v2", filepath.Join(dir, "..data_tmp")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "the swapped ConfigMap", func() bool { return persona() == "You are Pell, updated." })
}
