package planner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/state"
)

func sectionNames(p Prompt) []string {
	var out []string
	for _, s := range p.Sections {
		if s.Message == 0 {
			out = append(out, s.Name)
		}
	}
	return out
}

func TestComputedAndVolatileSections(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "clock.md"), []byte("---\nsection: clock\norder: 950\ncache: volatile\nreason: shows the hour\n---\nLocal hour: {{.Now.Hour}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "catalog.md"), []byte("---\nsection: catalog\norder: 150\n---\n# Actions\nOnly what the manual says.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	calls := 0
	memory := Section{Name: "pier", Order: 210, Render: func(d prompts.Data) (string, error) {
		calls++
		return "Notes about " + prompts.Quote(d.Channel.Title) + ": they meet at the pier.", nil
	}}
	empty := Section{Name: "nothing", Order: 220, Render: func(prompts.Data) (string, error) { return "  \n", nil }}
	b := newTestBuilder(t, dir, BuilderOptions{Sections: []Section{memory, empty}})

	in := fixture("satori", true)
	first, err := b.Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(sectionNames(first), ",")
	want := "persona,protocol,catalog,runtime,pier,group,language,platform-satori,context,clock"
	if got != want {
		t.Errorf("sections = %s\nwant       %s", got, want)
	}
	sys := first.Messages[0].Content
	if !strings.Contains(sys, "Only what the manual says.") || strings.Contains(sys, "- send_message") {
		t.Errorf("catalog template did not replace the computed catalog:\n%s", sys)
	}
	if !strings.Contains(sys, `Notes about "Harbour Lights": they meet at the pier.`) {
		t.Errorf("computed section missing:\n%s", sys)
	}
	for _, s := range first.Sections {
		switch s.Name {
		case "clock":
			if s.Cache != "volatile" || s.Reason != "shows the hour" {
				t.Errorf("clock info = %+v", s)
			}
		case "pier":
			if s.Source != "computed" || s.Cache != "static" {
				t.Errorf("pier info = %+v", s)
			}
		}
	}

	in.Now = in.Now.Add(time.Hour)
	second, err := b.Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(first.Messages[0].Content, "Local hour: 21") || !strings.HasSuffix(second.Messages[0].Content, "Local hour: 22") {
		t.Errorf("volatile section not rendered per tick:\n%s\n---\n%s", first.Messages[0].Content, second.Messages[0].Content)
	}
	if calls != 1 {
		t.Errorf("static computed section rendered %d times over two ticks, want once", calls)
	}
}

func TestTemplateChangeRebuildsSystem(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "persona.md"), []byte("---\nsection: persona\n---\n"+body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("You are Pell.")
	src, err := prompts.Load(dir, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := actions.NewBuiltinRegistry(actions.Handlers{})
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder(src, reg, BuilderOptions{})
	in := fixture("console", false)
	build := func() string {
		t.Helper()
		p, err := b.Build(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		return p.Messages[0].Content
	}
	if !strings.HasPrefix(build(), "You are Pell.") {
		t.Fatal("override not used")
	}
	write("You are Pell, edited.")
	if err := src.Reload(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(build(), "You are Pell, edited.") {
		t.Fatal("edited template not picked up by the next build")
	}
	write("{{.Broken")
	if err := src.Reload(); err == nil {
		t.Fatal("broken template reloaded without error")
	}
	if !strings.HasPrefix(build(), "You are Pell, edited.") {
		t.Fatal("a broken edit changed the prompt")
	}
}

func TestBuildHonoursContext(t *testing.T) {
	b := newTestBuilder(t, "", BuilderOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Build(ctx, fixture("console", true)); err == nil {
		t.Fatal("build with a cancelled context succeeded")
	}
	if b.HistoryLimit() != DefaultHistoryLimit {
		t.Errorf("history limit = %d", b.HistoryLimit())
	}
}

// Channels tick concurrently; one builder serves them all.
func TestBuildConcurrent(t *testing.T) {
	b := newTestBuilder(t, "", BuilderOptions{})
	want := map[bool]string{}
	for _, g := range []bool{false, true} {
		p, err := b.Build(context.Background(), fixture("telegram", g))
		if err != nil {
			t.Fatal(err)
		}
		want[g] = p.Messages[0].Content
	}
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			var err error
			for j := 0; j < 20 && err == nil; j++ {
				var p Prompt
				p, err = b.Build(context.Background(), fixture("telegram", i%2 == 0))
				if err == nil && p.Messages[0].Content != want[i%2 == 0] {
					err = fmt.Errorf("goroutine %d: system message differs", i)
				}
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestLanguageSection(t *testing.T) {
	b := newTestBuilder(t, "", BuilderOptions{})
	for _, tt := range []struct{ lang, want string }{
		{"", "Answer in the speaker's language."},
		{" German ", "Always answer in German, whatever language people write in."},
	} {
		in := fixture("console", false)
		in.Language = tt.lang
		p, err := b.Build(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for _, s := range p.Sections {
			if s.Name == SectionLanguage {
				got = s.Text(p.Messages)
			}
		}
		if got != tt.want {
			t.Errorf("language %q: section %q, want %q", tt.lang, got, tt.want)
		}
	}
}

// TestStaticTemplateSharedByData checks that channels share the rendering
// of a static template only where the data it reads agree: the persona
// reads the bot's name, a custom section the chat's title.
func TestStaticTemplateSharedByData(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "title.md"), []byte("---\nsection: title\norder: 250\n---\nThis chat is called {{quote .Channel.Title}}.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := newTestBuilder(t, dir, BuilderOptions{})
	tests := []struct {
		id, title, bot string
		want           []string
	}{
		{"1", "Ada", "Juni", []string{"You are Juni.", `This chat is called "Ada".`}},
		{"2", "Bo", "Juni", []string{"You are Juni.", `This chat is called "Bo".`}},
		{"3", "Ada", "Pell", []string{"You are Pell.", `This chat is called "Ada".`}},
		{"4", "Bo", "Juni", []string{"You are Juni.", `This chat is called "Bo".`}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			in := fixture("telegram", false)
			in.Channel.ID, in.Channel.Title, in.BotName = tt.id, tt.title, tt.bot
			p, err := b.Build(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(p.Messages[0].Content, w) {
					t.Errorf("system message lacks %q:\n%s", w, p.Messages[0].Content)
				}
			}
		})
	}
	// Four chats, two titles and two bot names: each of the two
	// templates rendered twice, once for each value it reads.
	for _, tmpl := range []string{"This chat is called", "You are "} {
		for _, texts := range b.rendered {
			var sample string
			for _, text := range texts {
				sample = text
				break
			}
			if !strings.Contains(sample, tmpl) {
				continue
			}
			if len(texts) != 2 {
				t.Errorf("the template rendering %q kept %d texts for four chats, want 2", tmpl, len(texts))
			}
			tmpl = ""
			break
		}
		if tmpl != "" {
			t.Errorf("no rendering of the template with %q was kept", tmpl)
		}
	}
}

// TestSystemCacheSharesSectionTexts: two private chats whose static
// sections render alike hold the same strings and one layout, not a copy
// each, so an idle chat costs a few string headers whatever the length of
// the system message.
func TestSystemCacheSharesSectionTexts(t *testing.T) {
	b := newTestBuilder(t, "", BuilderOptions{})
	a, c := fixture("telegram", false), fixture("telegram", false)
	c.Channel.ID, c.Channel.Title = "43", "Bo"
	c.Channels = []state.Channel{c.Channel}
	for _, in := range []Input{a, c} {
		if _, err := b.Build(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	ca, cc := b.chats.get(a.Channel.ID).sys, b.chats.get(c.Channel.ID).sys
	if ca == nil || cc == nil {
		t.Fatal("no system message cached for the channels")
	}
	if ca.layout != cc.layout {
		t.Errorf("the two chats have a layout each, want one shared")
	}
	shared := 0
	for i := range ca.texts {
		x, y := ca.texts[i], cc.texts[i]
		if x == "" || x != y {
			continue
		}
		if unsafe.StringData(x) != unsafe.StringData(y) {
			t.Errorf("section %s: equal texts are held twice", ca.layout.parts[i].info.Name)
		}
		shared++
	}
	if shared == 0 {
		t.Errorf("no static section is shared between two private chats")
	}
}
