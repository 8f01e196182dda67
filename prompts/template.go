package prompts

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"text/template"

	"go.yaml.in/yaml/v3"
)

// Cache says how long a rendered section may be reused.
type Cache string

// Cache policies. A static section is rendered once and reused until a
// template file or the channel's facts change, which keeps the system
// message byte-identical from tick to tick (and the provider's prompt cache
// warm). A volatile section is rendered every tick and must say why.
const (
	CacheStatic   Cache = "static"
	CacheVolatile Cache = "volatile"
)

// StateSection is the section name of the template that renders the state
// message (the last user message of a request) instead of a system section.
const StateSection = "state"

// Chat kinds a `when` condition can name.
const (
	ChatGroup  = "group"
	ChatDirect = "direct"
)

// When restricts a section to some platforms or chat kinds. Empty fields
// match everything.
type When struct {
	// Platform lists the adapters the section applies to (telegram, satori,
	// console). In front matter it is one name or a list.
	Platform []string
	// Chat is "group", "direct" or empty for both.
	Chat string
}

// Match reports whether the condition holds for a platform and chat kind.
func (w When) Match(platform string, group bool) bool {
	if len(w.Platform) > 0 {
		ok := false
		for _, p := range w.Platform {
			if strings.EqualFold(p, platform) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	switch w.Chat {
	case ChatGroup:
		return group
	case ChatDirect:
		return !group
	}
	return true
}

// String writes the condition as front matter would, for previews.
func (w When) String() string {
	var parts []string
	if len(w.Platform) > 0 {
		parts = append(parts, "platform: "+strings.Join(w.Platform, "|"))
	}
	if w.Chat != "" {
		parts = append(parts, "chat: "+w.Chat)
	}
	return strings.Join(parts, ", ")
}

// Template is one parsed markdown template: its front matter and its body.
type Template struct {
	// File is the file name, the key an override replaces by.
	File string
	// Path says where the file came from: "embedded:NAME" or a path on disk.
	Path string
	// Section is the section name, the other key an override replaces by.
	Section string
	// Order places the section among the others (0–99 identity and persona,
	// 100–199 protocol and catalog, 200–299 memory and chat rules, 300–399
	// output and platform rules, 900 the built-in chat facts).
	Order int
	// HasOrder reports whether the front matter declared an order.
	HasOrder bool
	When     When
	Cache    Cache
	// Reason says why a volatile section must be rendered every tick.
	Reason string
	// Name is an optional character name declared by a persona template;
	// it is the bot's name when none is configured.
	Name string

	// bodyLine is the line of the file where the body starts, so that
	// errors from text/template point at the line of the file.
	bodyLine int
	tmpl     *template.Template
	// uses are the parts of Data the body reads.
	uses Fields
	// bufs holds buffers of earlier renderings: the state message is
	// rendered every tick, and a buffer grown to its size once need not
	// grow again.
	bufs sync.Pool
}

// maxPooledBuffer bounds the buffers kept for later renderings, so that
// one huge rendering does not stay in memory.
const maxPooledBuffer = 64 << 10

// TemplateError is a template that failed to load or render, with the file
// and the line at fault.
type TemplateError struct {
	Path string
	Line int
	Err  error
}

// Error formats the error as "path:line: message".
func (e *TemplateError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

// Unwrap returns the underlying error.
func (e *TemplateError) Unwrap() error { return e.Err }

type frontMatter struct {
	Section string    `yaml:"section"`
	Order   *int      `yaml:"order"`
	When    yaml.Node `yaml:"when"`
	Cache   string    `yaml:"cache"`
	Reason  string    `yaml:"reason"`
	Name    string    `yaml:"name"`
}

type whenYAML struct {
	Platform yaml.Node `yaml:"platform"`
	Chat     string    `yaml:"chat"`
}

var yamlLineRE = regexp.MustCompile(`line (\d+): `)

// Parse reads one template file: a front matter block between "---" lines,
// then a text/template body. path names the file in errors.
func Parse(file, path string, src []byte) (*Template, error) {
	fail := func(line int, err error) (*Template, error) {
		return nil, &TemplateError{Path: path, Line: line, Err: err}
	}
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	text = strings.TrimPrefix(text, "\ufeff")
	if !strings.HasPrefix(text, "---\n") {
		return fail(1, errors.New(`missing front matter: the file must start with a "---" line`))
	}
	rest := text[len("---\n"):]
	end := -1
	if strings.HasPrefix(rest, "---\n") || rest == "---" {
		end = 0
	} else if i := strings.Index(rest, "\n---\n"); i >= 0 {
		end = i + 1
	} else if strings.HasSuffix(rest, "\n---") {
		end = len(rest) - len("---")
	}
	if end < 0 {
		return fail(1, errors.New(`front matter is not closed by a "---" line`))
	}
	head := rest[:end]
	body := ""
	if after := rest[end:]; len(after) > len("---\n") {
		body = after[len("---\n"):]
	}
	bodyLine := 2 + strings.Count(head, "\n") + 1

	var fm frontMatter
	if err := yaml.Unmarshal([]byte(head), &fm); err != nil {
		line := 1
		msg := err.Error()
		if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			line = n + 1
			msg = strings.Replace(msg, m[0], "", 1)
		}
		return fail(line, fmt.Errorf("front matter: %s", strings.TrimPrefix(msg, "yaml: ")))
	}
	t := &Template{File: file, Path: path, Section: strings.TrimSpace(fm.Section), Name: strings.TrimSpace(fm.Name), Reason: strings.TrimSpace(fm.Reason), bodyLine: bodyLine}
	if t.Section == "" {
		return fail(1, errors.New("front matter: section is required"))
	}
	if fm.Order != nil {
		t.Order, t.HasOrder = *fm.Order, true
	}
	switch Cache(fm.Cache) {
	case "", CacheStatic:
		t.Cache = CacheStatic
	case CacheVolatile:
		t.Cache = CacheVolatile
		if t.Reason == "" && t.Section != StateSection {
			return fail(1, errors.New("front matter: a volatile section needs a reason (it is rendered every tick and breaks the prompt cache)"))
		}
	default:
		return fail(1, fmt.Errorf("front matter: cache %q: want static or volatile", fm.Cache))
	}
	if fm.When.Kind != 0 {
		var w whenYAML
		if err := fm.When.Decode(&w); err != nil {
			return fail(fm.When.Line+1, fmt.Errorf("front matter: when: want {platform: NAME, chat: group|direct}"))
		}
		switch w.Platform.Kind {
		case 0:
		case yaml.ScalarNode:
			t.When.Platform = []string{strings.ToLower(strings.TrimSpace(w.Platform.Value))}
		case yaml.SequenceNode:
			for _, n := range w.Platform.Content {
				t.When.Platform = append(t.When.Platform, strings.ToLower(strings.TrimSpace(n.Value)))
			}
		default:
			return fail(w.Platform.Line+1, errors.New("front matter: when.platform: want a name or a list of names"))
		}
		switch w.Chat {
		case "", ChatGroup, ChatDirect:
			t.When.Chat = w.Chat
		default:
			return fail(fm.When.Line+1, fmt.Errorf("front matter: when.chat %q: want group or direct", w.Chat))
		}
	}
	tmpl, err := template.New(file).Option("missingkey=error").Funcs(funcs).Parse(body)
	if err != nil {
		return nil, t.wrap(err)
	}
	t.tmpl = tmpl
	t.uses = usesOf(tmpl.Tree)
	return t, nil
}

var tmplLineRE = regexp.MustCompile(`^template: [^:]*:(\d+):(?:\d+:)? ?`)

// wrap turns a text/template error into a TemplateError whose line is the
// line of the file, not of the body.
func (t *Template) wrap(err error) error {
	msg := err.Error()
	line := 0
	if m := tmplLineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		line = n + t.bodyLine - 1
		msg = msg[len(m[0]):]
	}
	// Messages such as "unclosed action started at f.md:2" name body
	// lines too; point them at the file's lines as well.
	ref := regexp.MustCompile(regexp.QuoteMeta(t.File) + `:(\d+)`)
	msg = ref.ReplaceAllStringFunc(msg, func(s string) string {
		n, err := strconv.Atoi(s[len(t.File)+1:])
		if err != nil {
			return s
		}
		return t.File + ":" + strconv.Itoa(n+t.bodyLine-1)
	})
	return &TemplateError{Path: t.Path, Line: line, Err: errors.New(msg)}
}

// Render executes the body with data and returns the text with surrounding
// white space trimmed. A failure names the file and line.
func (t *Template) Render(data any) (string, error) {
	buf, _ := t.bufs.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledBuffer {
			t.bufs.Put(buf)
		}
	}()
	if err := t.tmpl.Execute(buf, data); err != nil {
		return "", t.wrap(err)
	}
	return string(bytes.TrimSpace(buf.Bytes())), nil
}
