package planner

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/state"
)

// DefaultHistoryLimit is the history window when none is configured.
const DefaultHistoryLimit = 20

// Chat roles of request messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Input is everything one tick of a channel knows, gathered by the caller
// from the store.
type Input struct {
	Platform string // adapter: "telegram" | "satori" | "console"; "" = the channel's
	BotName  string // "" = BuilderOptions.BotName, else the persona's name
	Language string // response language; "" = answer in the users' language
	Channel  state.Channel
	// History is what Store.History(ctx, channelID, HistoryLimit()) returns:
	// the newest read or own messages, oldest first.
	History []state.Message
	// HistoryTotal is the total Store.History returns; it keeps the window
	// start still while the channel grows.
	HistoryTotal int
	// Incoming are the messages delivered by this tick (new since the previous tick).
	Incoming []state.Message
	// Remaining counts unread messages of this channel not shown this tick.
	Remaining int
	// Actions is the recent action history of the channel, oldest first.
	Actions []state.ActionRecord
	// Wake is the current wake: its records are shown in full, earlier ones
	// compactly.
	Wake int64
	// Unread is the unread count per channel id, every channel.
	Unread map[string]int
	// Channels are the known channels (for titles in unread counts).
	Channels []state.Channel
	Now      time.Time
}

// Prompt is one assembled request.
type Prompt struct {
	// Messages are the system message, the history (oldest first) and the
	// state message, exactly as sent.
	Messages []state.ChatMessage
	// Sections describe where each section of the system message and the
	// state message lie, for the tick inspector and `airi prompt render`.
	Sections []SectionInfo
}

// SectionInfo locates one rendered section.
type SectionInfo struct {
	Name  string `json:"name"`
	Order int    `json:"order"`
	// Source is the template's path ("embedded:persona.md" or a file on
	// disk) or "computed" for sections made by Go code.
	Source string `json:"source"`
	// Cache is "static" (rendered once per channel until files or facts
	// change) or "volatile" (every tick).
	Cache  string `json:"cache"`
	Reason string `json:"reason,omitempty"`
	// Message is the index in Prompt.Messages; Start and End the byte range
	// of the section in that message's content.
	Message int `json:"message"`
	Start   int `json:"start"`
	End     int `json:"end"`
}

// Text returns the section's text within p.
func (s SectionInfo) Text(p Prompt) string {
	if s.Message < 0 || s.Message >= len(p.Messages) {
		return ""
	}
	c := p.Messages[s.Message].Content
	if s.Start < 0 || s.End > len(c) || s.Start > s.End {
		return ""
	}
	return c[s.Start:s.End]
}

// BuilderOptions configure a Builder.
type BuilderOptions struct {
	// HistoryLimit is the history window (default 20).
	HistoryLimit int
	// TimeZone is the zone of times shown to the model; nil uses the zone
	// of Input.Now (the server's for time.Now(), the recorded one in a
	// replay).
	TimeZone *time.Location
	// BotName is the bot's name when Input.BotName is empty; when both are
	// empty the persona template's name is used.
	BotName string
	// Sections are extra computed sections (memory, for example) joined to
	// the registry with the built-in ones.
	Sections []Section
}

// Builder assembles requests. It is safe for concurrent use.
type Builder struct {
	src      *prompts.Source
	opts     BuilderOptions
	computed []Section

	mu    sync.Mutex
	cache map[string]*systemCache // by channel id
}

// NewBuilder returns a builder rendering src's templates and the catalog
// of reg's actions.
func NewBuilder(src *prompts.Source, reg *actions.Registry, opts BuilderOptions) *Builder {
	if opts.HistoryLimit <= 0 {
		opts.HistoryLimit = DefaultHistoryLimit
	}
	b := &Builder{src: src, opts: opts, cache: map[string]*systemCache{}}
	b.computed = append(builtinSections(reg), opts.Sections...)
	return b
}

// zone returns the zone times are shown in.
func (b *Builder) zone(now time.Time) *time.Location {
	if b.opts.TimeZone != nil {
		return b.opts.TimeZone
	}
	return now.Location()
}

// HistoryLimit returns the history window to ask the store for.
func (b *Builder) HistoryLimit() int { return b.opts.HistoryLimit }

// Build assembles the request of one tick: the system message (stable
// across ticks of the channel), the history window and the state message.
func (b *Builder) Build(ctx context.Context, in Input) (Prompt, error) {
	if err := ctx.Err(); err != nil {
		return Prompt{}, fmt.Errorf("build prompt: %w", err)
	}
	set := b.src.Current()
	data := b.staticData(set, in)
	system, infos, err := b.system(set, in.Channel.ID, data, in.Now)
	if err != nil {
		return Prompt{}, fmt.Errorf("build prompt for %q: %w", in.Channel.ID, err)
	}
	hist := b.window(in.History, in.HistoryTotal)
	msgs := make([]state.ChatMessage, 0, len(hist)+2)
	msgs = append(msgs, state.ChatMessage{Role: RoleSystem, Content: system})
	for _, m := range hist {
		msgs = append(msgs, historyTurn(m, in.Channel.ID))
	}
	sd := b.stateData(data, in, hist)
	text, err := set.State.Render(sd)
	if err != nil {
		return Prompt{}, fmt.Errorf("build prompt for %q: state message: %w", in.Channel.ID, err)
	}
	msgs = append(msgs, state.ChatMessage{Role: RoleUser, Content: text})
	infos = append(infos, SectionInfo{
		Name: prompts.StateSection, Order: set.State.Order, Source: set.State.Path,
		Cache: string(prompts.CacheVolatile), Reason: set.State.Reason,
		Message: len(msgs) - 1, Start: 0, End: len(text),
	})
	return Prompt{Messages: msgs, Sections: infos}, nil
}

// staticData is what system sections see: nothing that changes per tick.
func (b *Builder) staticData(set *prompts.Set, in Input) prompts.Data {
	platform := in.Platform
	if platform == "" {
		platform = in.Channel.Platform
	}
	if platform == "" {
		platform = "console"
	}
	name := in.BotName
	if name == "" {
		name = b.opts.BotName
	}
	if name == "" {
		name = set.BotName()
	}
	if name == "" {
		name = "bot"
	}
	return prompts.Data{
		Bot:      prompts.Bot{Name: name},
		Language: in.Language,
		Platform: platform,
		Channel: prompts.Channel{
			ID:      in.Channel.ID,
			Title:   in.Channel.Title,
			Group:   in.Channel.Group,
			Members: canonicalMembers(in.Channel.Members),
		},
	}
}

// WriteText writes p for people: each message under a header naming its
// role, the system and state messages split into their sections.
func (p Prompt) WriteText(w io.Writer) error {
	var b strings.Builder
	bySection := map[int][]SectionInfo{}
	for _, s := range p.Sections {
		bySection[s.Message] = append(bySection[s.Message], s)
	}
	nhist := len(p.Messages) - 2
	for i, m := range p.Messages {
		switch {
		case i == 0:
			fmt.Fprintf(&b, "=== system ===\n")
		case i == len(p.Messages)-1:
			fmt.Fprintf(&b, "=== state (%s) ===\n", m.Role)
		default:
			fmt.Fprintf(&b, "=== history %d/%d (%s) ===\n", i, nhist, m.Role)
		}
		secs := bySection[i]
		if len(secs) == 0 || i == len(p.Messages)-1 {
			b.WriteString(m.Content)
			b.WriteString("\n")
			continue
		}
		for _, s := range secs {
			fmt.Fprintf(&b, "--- %s · order %d · %s · %s ---\n", s.Name, s.Order, s.Source, s.Cache)
			b.WriteString(s.Text(p))
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
