package planner

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/internal/tokens"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/state"
)

// DefaultHistoryLimit is the history window when none is configured.
const DefaultHistoryLimit = 20

// DefaultMaxTokens bounds a request when no bound is configured.
const DefaultMaxTokens = 8000

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
	// Incoming are the messages this tick may show as new, oldest first:
	// messages shown again (Read set) before unread ones. Build shows as
	// many as fit the request's budget, at least one, each cut to
	// prompts.MaxMessageRunes with a marker, and reports them in
	// Prompt.Shown; the unread ones it leaves out count as remaining.
	Incoming []state.Message
	// Remaining counts unread messages of this channel beyond Incoming.
	Remaining int
	// Actions is the recent action history of the channel, oldest first.
	Actions []state.ActionRecord
	// Wake is the current wake: its records are shown in full, earlier ones
	// compactly.
	Wake int64
	// Unread is the unread count per channel id: every channel, or those
	// the state message may list when UnreadOmitted counts the rest.
	Unread map[string]int
	// UnreadOmitted counts the channels with unread messages, and their
	// messages, that Unread leaves out (a bot in very many busy chats).
	UnreadOmitted UnreadOmitted
	// Channels are the known channels (for titles in unread counts).
	Channels []state.Channel
	Now      time.Time
	// Shrink halves the history's share of the budget this many times,
	// after the model refused a request as longer than its context.
	Shrink int
	// Attention is the group mode of the channel as configured ("ambient",
	// "addressed"; "" or "all": every message wakes it), for the system
	// message; it does not change from tick to tick.
	Attention string
	// Notice is a line of the runtime for this tick's state message (a
	// token budget in fallback), or "".
	Notice string
	// Tools is the catalog text of the tools the channel's senders may
	// use (the runtime renders it), "" for none; the catalog section
	// shows it after the actions.
	Tools string
	// Notes, when not nil, are the memory notes the channel may see;
	// otherwise Build asks BuilderOptions.Notes.
	Notes []state.Note
	// Reactions are the reactions to the bot's messages not shown yet,
	// oldest first; the state message shows each of them.
	Reactions []state.Reaction
	// Images are the images to send inline, by hash: an attachment of a
	// shown message whose Hash is here goes with its message as an image
	// part. Every attachment is also shown as its label.
	Images map[string]state.Image
}

// Prompt is one assembled request.
type Prompt struct {
	// Messages are the system message, the history (oldest first) and the
	// state message, exactly as sent.
	Messages []state.ChatMessage
	// Sections describe where each section of the system message and the
	// state message lie, for the tick inspector and `airi prompt render`.
	Sections []state.Section
	// Shown are the ids of the Input.Incoming messages the state message
	// shows, in full or cut with a marker: exactly what the model has seen
	// once it answers this request.
	Shown []int64
	// Tokens estimates the request's prompt tokens (o200k).
	Tokens int
}

// BuilderOptions configure a Builder.
type BuilderOptions struct {
	// HistoryLimit is the history window [DefaultHistoryLimit]; the
	// scheduler asks the builder for it, so it is set here only.
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
	// Notes, when set, gives the memory section the notes each channel
	// may see.
	Notes NoteSource
	// MaxTokens bounds the whole request, estimated with the o200k
	// encoding [DefaultMaxTokens]. The history window gives way first,
	// oldest messages first in blocks; new messages beyond a quarter of it
	// wait for the next tick.
	MaxTokens int
	// CachedChannels bounds the channels whose rendered system message and
	// history token counts are kept between ticks [DefaultCachedChannels];
	// the channels built least recently give theirs up first, and render
	// and count again (the same bytes) on their next tick.
	CachedChannels int
}

// Builder assembles requests. It is safe for concurrent use.
type Builder struct {
	src      *prompts.Source
	opts     BuilderOptions
	computed []Section
	tok      *tokens.Counter

	mu sync.Mutex
	// chats are the caches of the channels built most recently.
	chats *chatCaches
	// layouts are the system message layouts of the current template set.
	layouts map[layoutKey]*layout
	// sections are static section texts shared across channels.
	sections map[string]*sectionCount
	// rendered are the texts of static template sections by template and
	// by the data they read (prompts.Data.AppendKey), for the template
	// set of renderedVersion.
	rendered        map[*prompts.Template]map[string]string
	renderedVersion uint64
	// notesExist is set once BuilderOptions.Notes, a NoteChecker, said a
	// note exists: from then on the notes are read every tick.
	notesExist atomic.Bool
}

// NewBuilder returns a builder rendering src's templates and the catalog
// of reg's actions.
func NewBuilder(src *prompts.Source, reg *actions.Registry, opts BuilderOptions) *Builder {
	if opts.HistoryLimit <= 0 {
		opts.HistoryLimit = DefaultHistoryLimit
	}
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = DefaultMaxTokens
	}
	if opts.CachedChannels <= 0 {
		opts.CachedChannels = DefaultCachedChannels
	}
	b := &Builder{src: src, opts: opts, tok: tokens.New(), chats: newChatCaches(opts.CachedChannels),
		layouts: map[layoutKey]*layout{}, sections: map[string]*sectionCount{},
		rendered: map[*prompts.Template]map[string]string{}}
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

// UnreadOmitted counts unread messages of channels an Input leaves out.
type UnreadOmitted struct {
	Channels, Messages int
}

// HistoryLimit returns the history window to ask the store for.
func (b *Builder) HistoryLimit() int { return b.opts.HistoryLimit }

// Build assembles the request of one tick: the system message (stable
// across ticks of the channel), the history window and the state message,
// within BuilderOptions.MaxTokens as far as the history can give way.
func (b *Builder) Build(ctx context.Context, in Input) (Prompt, error) {
	if err := ctx.Err(); err != nil {
		return Prompt{}, fmt.Errorf("build prompt: %w", err)
	}
	set := b.src.Current()
	data := b.staticData(set, in)
	mem, err := b.memory(ctx, in)
	if err != nil {
		return Prompt{}, fmt.Errorf("build prompt for %q: %w", in.Channel.ID, err)
	}
	data.Memory = mem
	system, infos, sysTokens, err := b.system(set, in.Channel.ID, data, in.Now)
	if err != nil {
		return Prompt{}, fmt.Errorf("build prompt for %q: %w", in.Channel.ID, err)
	}
	in.History, in.Incoming = labelled(in.History, historyMediaRunes), labelled(in.Incoming, 0)
	in, shown := b.fitIncoming(in, b.opts.MaxTokens/4)

	hist := b.window(in.History, in.HistoryTotal)
	first := max(in.HistoryTotal, len(in.History)) - len(hist) // index of hist[0] in the channel
	turns, turnTok := b.historyTurns(in.Channel.ID, hist)
	var text string
	var stateCount int
	for {
		sd := b.stateData(data, in, hist)
		text, err = set.State.Render(sd)
		if err != nil {
			return Prompt{}, fmt.Errorf("build prompt for %q: state message: %w", in.Channel.ID, err)
		}
		// The history's share does not follow the state message's size
		// tick by tick, so that the window start, and with it the
		// prompt cache, stays put while the state message varies; only a
		// state message over its reserve takes more from the history.
		stateCount = b.tok.Count(text)
		stateTokens := max(stateCount+tokens.PerMessage, b.opts.MaxTokens*3/8)
		budget := b.opts.MaxTokens - tokens.PerRequest - sysTokens - stateTokens
		if in.Shrink > 0 {
			budget >>= min(in.Shrink, 16)
		}
		skip := b.trimHistory(turnTok, first, budget)
		if skip == 0 {
			break
		}
		// Sends that left the window are shown in full in the state
		// message now: render it again and check again.
		hist, turns, turnTok, first = hist[skip:], turns[skip:], turnTok[skip:], first+skip
	}
	msgs := make([]state.ChatMessage, 0, len(turns)+2)
	msgs = append(msgs, state.ChatMessage{Role: RoleSystem, Content: system})
	msgs = append(msgs, turns...)
	msgs = append(msgs, state.ChatMessage{Role: RoleUser, Content: text})
	images := attachImages(msgs[1:len(msgs)-1], hist, in.Images)
	images += attachImages(msgs[len(msgs)-1:], in.Incoming, in.Images)
	infos = append(infos, state.Section{
		Name: prompts.StateSection, Order: set.State.Order, Source: set.State.Path,
		Cache: string(prompts.CacheVolatile), Reason: set.State.Reason,
		Message: len(msgs) - 1, Start: 0, End: len(text),
	})
	total := tokens.PerRequest + sysTokens + stateCount + tokens.PerMessage + images*ImageTokens
	for _, n := range turnTok {
		total += n
	}
	return Prompt{Messages: msgs, Sections: infos, Shown: shown, Tokens: total}, nil
}

// staticFields are the parts of prompts.Data that staticData and the
// memory section fill: all the system message's sections can see (the
// others stay empty until the state message).
const staticFields = prompts.FieldBotName | prompts.FieldLanguage | prompts.FieldPlatform |
	prompts.FieldChannelID | prompts.FieldChannelTitle | prompts.FieldChannelGroup | prompts.FieldChannelMembers |
	prompts.FieldAttention | prompts.FieldMemory | prompts.FieldTools

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
	attn := in.Attention
	if attn == "all" {
		attn = ""
	}
	return prompts.Data{
		Bot:       prompts.Bot{Name: prompts.Clip(name, prompts.MaxNameRunes)},
		Language:  in.Language,
		Platform:  platform,
		Attention: attn,
		Tools:     in.Tools,
		Channel: prompts.Channel{
			ID:      in.Channel.ID,
			Title:   prompts.Clip(in.Channel.Title, prompts.MaxTitleRunes),
			Group:   in.Channel.Group,
			Members: canonicalMembers(in.Channel.Members),
		},
	}
}

// WriteText writes p for people: each message under a header naming its
// role, the system and state messages split into their sections.
func (p Prompt) WriteText(w io.Writer) error {
	var b strings.Builder
	bySection := map[int][]state.Section{}
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
			b.WriteString(s.Text(p.Messages))
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
