package actions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/internal/tokens"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/state"
)

// SilentToken in a message's content means "say nothing"; it is stripped
// wherever it appears and a message left blank is not sent.
const SilentToken = "@@SILENT@@"

// Store is what the built-in handlers need from the state.
type Store interface {
	Channel(ctx context.Context, id string) (state.Channel, error)
	Channels(ctx context.Context) ([]state.Channel, error)
	Unread(ctx context.Context, channelID string, limit int) ([]state.Message, error)
	CountUnreadAfter(ctx context.Context, channelID string, after int64) (int, error)
	UnreadCounts(ctx context.Context) (map[string]int, error)
	History(ctx context.Context, channelID string, limit int) ([]state.Message, int, error)
	// RecentOwn returns the bot's own messages among the channel's newest
	// scan history messages, newest first, at most limit of them, with
	// their content and time: what History would show of them, without
	// reading every column of the others.
	RecentOwn(ctx context.Context, channelID string, scan, limit int) ([]state.Message, error)
	ClearActions(ctx context.Context, channelID string) error
	Ingest(ctx context.Context, msg state.Message) (state.Message, bool, error)
	AddOutbox(ctx context.Context, e state.OutboxEntry) (int64, error)
	SetOutboxState(ctx context.Context, id int64, st state.OutboxState, platformID, errText string) error
	// RecordSent marks a send's outbox entry done and stores the sent
	// message in one transaction; nothing is stored when it fails.
	RecordSent(ctx context.Context, id int64, platformID, errText string, msg state.Message) error
}

// Sender delivers a message to the platform of its channel. out.ChannelID
// is the id the model sees. An error wrapping state.ErrOutcomeUnknown means the
// message may have gone out; an error returned with a platformID means part
// of it went out (a message sent in several parts failed after the first),
// and platformID is the id of the first part.
type Sender interface {
	Send(ctx context.Context, out state.Outgoing) (platformID string, err error)
}

// PartCounter is the optional ability of a Sender to tell, before anything
// goes out, how many platform messages it would send a message as (Telegram
// splits a long text into several). Zero means the platform would refuse
// the message as empty. A Sender without it sends every message as one.
type PartCounter interface {
	Parts(out state.Outgoing) int
}

// Defaults of the built-in handlers, used where a HandlerDeps field is
// zero. The command line's configuration and the table of
// docs/configuration.md take theirs from here.
const (
	// DefaultSleep is how long sleep lasts when the model names no duration.
	DefaultSleep = 30 * time.Second
	// DefaultSleepMax bounds one sleep.
	DefaultSleepMax = 10 * time.Minute
	// DefaultReadLimit bounds the messages one read returns.
	DefaultReadLimit = 50
	// DefaultMaxSendChars bounds one send in characters.
	DefaultMaxSendChars = 4000
	// DefaultMaxSendParts bounds the platform messages one send may become.
	DefaultMaxSendParts = 3
	// DefaultReadTokens bounds the o200k tokens of the messages one read returns.
	DefaultReadTokens = 2000
)

// HandlerDeps configures the built-in handlers; zero values take the
// defaults above.
type HandlerDeps struct {
	Store  Store
	Sender Sender
	// Reactor sets reactions (the react action); nil refuses them.
	Reactor Reactor
	// BotName is the name the bot's own stored messages carry.
	BotName string
	// Name, when set, is asked for that name at each send instead of
	// BotName, so that a renamed persona applies at once.
	Name func() string
	// Allowed, when non-nil, says whether the bot may act in a channel.
	Allowed func(channelID string) bool
	// SleepDefault is used when sleep has no duration [DefaultSleep];
	// SleepMax bounds it [DefaultSleepMax].
	SleepDefault, SleepMax time.Duration
	// ReadLimit bounds how many messages one read returns [DefaultReadLimit].
	ReadLimit int
	// MaxSendChars and MaxSendParts bound one send [DefaultMaxSendChars,
	// DefaultMaxSendParts]:
	// a message longer than MaxSendChars characters, or one the sender
	// would split into more than MaxSendParts platform messages, is refused
	// before anything goes out.
	MaxSendChars, MaxSendParts int
	// ReadTokens bounds the messages one read returns by their o200k
	// tokens [DefaultReadTokens]: the result is shown in the next request,
	// whose budget it shares. At least one message is returned, cut to fit.
	ReadTokens int
	Now        func() time.Time
	// Notes keeps the memory notes; nil uses Store when it keeps them too.
	Notes NoteStore
	// NoteLimits returns the caps of a note scope (default
	// state.DefaultNoteLimits).
	NoteLimits func(state.NoteScope) state.NoteLimits
	// Logger reports what the model cannot act on, such as a delivered
	// message that could not be stored in the history (default: no logs).
	Logger *zap.Logger
}

// NewHandlers returns the built-in handlers bound to deps.
func NewHandlers(deps HandlerDeps) Handlers {
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.SleepDefault <= 0 {
		deps.SleepDefault = DefaultSleep
	}
	if deps.SleepMax <= 0 {
		deps.SleepMax = DefaultSleepMax
	}
	if deps.ReadLimit <= 0 {
		deps.ReadLimit = DefaultReadLimit
	}
	if deps.MaxSendChars <= 0 {
		deps.MaxSendChars = DefaultMaxSendChars
	}
	if deps.MaxSendParts <= 0 {
		deps.MaxSendParts = DefaultMaxSendParts
	}
	if deps.Logger == nil {
		deps.Logger = zap.NewNop()
	}
	if deps.ReadTokens <= 0 {
		deps.ReadTokens = DefaultReadTokens
	}
	h := &builtins{deps: deps, tok: tokens.New()}
	return Handlers{
		SendMessage:  HandlerFunc(h.send),
		ReadUnread:   HandlerFunc(h.read),
		Sleep:        HandlerFunc(h.sleep),
		Continue:     HandlerFunc(h.cont),
		Break:        HandlerFunc(h.brk),
		ListChannels: HandlerFunc(h.list),
		Remember:     HandlerFunc(h.remember),
		Forget:       HandlerFunc(h.forget),
		React:        HandlerFunc(h.react),
	}
}

type builtins struct {
	deps   HandlerDeps
	tok    *tokens.Counter
	reacts reactLog
}

// channel resolves a channel id named by the model, or explains which ids
// exist. A channel outside the allowlist reads as unknown: the model never
// learns of it.
func (h *builtins) channel(ctx context.Context, id string) (state.Channel, *Result, error) {
	ch, err := h.deps.Store.Channel(ctx, id)
	if err == nil && !h.allowed(ch.ID) {
		err = state.ErrNotFound
	}
	if errors.Is(err, state.ErrNotFound) {
		known, lerr := h.visibleChannels(ctx)
		if lerr != nil {
			return ch, nil, lerr
		}
		ids := make([]string, 0, len(known))
		for _, k := range known {
			ids = append(ids, fmt.Sprintf("%q", k.ID))
		}
		return ch, &Result{Next: true, Text: fmt.Sprintf("unknown channel %q; known channels: %s", id, strings.Join(ids, ", "))}, nil
	}
	if err != nil {
		return ch, nil, fmt.Errorf("look up channel %q: %w", id, err)
	}
	return ch, nil, nil
}

// allowed says whether the bot may see and act in a channel.
func (h *builtins) allowed(id string) bool {
	return h.deps.Allowed == nil || h.deps.Allowed(id)
}

// visibleChannels returns the known channels the bot may see, by id.
func (h *builtins) visibleChannels(ctx context.Context) ([]state.Channel, error) {
	chans, err := h.deps.Store.Channels(ctx)
	if err != nil {
		return nil, fmt.Errorf("list channels: %w", err)
	}
	visible := chans[:0]
	for _, c := range chans {
		if h.allowed(c.ID) {
			visible = append(visible, c)
		}
	}
	sort.Slice(visible, func(i, j int) bool { return visible[i].ID < visible[j].ID })
	return visible, nil
}

// read returns unread messages of a channel in its result, as many as fit
// HandlerDeps.ReadTokens, and says how many remain. It marks nothing read:
// the result is shown in the next request, and the scheduler marks the
// messages of Result.Shown read once that request is answered.
func (h *builtins) read(ctx context.Context, call Call) (Result, error) {
	p, ok := call.Action.Params.(*ReadUnreadMessages)
	if !ok {
		return Result{}, fmt.Errorf("read_unread_messages got parameters of type %T", call.Action.Params)
	}
	ch, refusal, err := h.channel(ctx, p.ChannelID)
	if err != nil || refusal != nil {
		return deref(refusal), err
	}
	msgs, err := h.deps.Store.Unread(ctx, ch.ID, h.deps.ReadLimit)
	if err != nil {
		return Result{}, fmt.Errorf("read unread of %q: %w", ch.ID, err)
	}
	if len(msgs) == 0 {
		return Result{OK: true, Next: true, Text: fmt.Sprintf("no unread messages in %q", ch.ID)}, nil
	}
	counts, err := h.deps.Store.UnreadCounts(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("count unread of %q: %w", ch.ID, err)
	}
	var lines strings.Builder
	shown := make([]state.Message, 0, len(msgs))
	used := 0
	for i, m := range msgs {
		line := formatMessage(m, prompts.Cut(m.Content, prompts.MaxMessageRunes))
		n := h.tok.Count(line)
		if i > 0 && used+n > h.deps.ReadTokens {
			break
		}
		if n > h.deps.ReadTokens {
			// One message over the whole budget is cut to fit it.
			frame := h.tok.Count(formatMessage(m, ""))
			content := h.tok.Fit(m.Content, max(h.deps.ReadTokens-frame, 1), func(s string, n int) string {
				return prompts.Cut(s, min(n, prompts.MaxMessageRunes))
			})
			line = formatMessage(m, content)
			n = h.tok.Count(line)
		}
		used += n
		lines.WriteString(line)
		shown = append(shown, m)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d unread message(s) in %q:\n", len(shown), ch.ID)
	b.WriteString(lines.String())
	if rest := counts[ch.ID] - len(shown); rest > 0 {
		fmt.Fprintf(&b, "%d more unread in %q: read again for them.\n", rest, ch.ID)
	}
	res := Result{OK: true, Next: true, Text: b.String(), Shown: shown}
	if ch.ID == call.Channel {
		res.Delivered = len(shown)
	}
	return res, nil
}

// formatMessage renders one chat message as quoted data, one line in the
// layout of the state message (id, time, sender, content), name and
// content as JSON strings, so that nothing a user writes can pass for the
// runtime's own words. content is the message's text as shown (cut).
func formatMessage(m state.Message, content string) string {
	return fmt.Sprintf("- id %s %s %s: %s\n", quote(m.PlatformID), m.Time.UTC().Format("15:04"),
		quote(prompts.Clip(m.SenderName, prompts.MaxNameRunes)), quote(content))
}

// quote writes s as a JSON string, leaving <, > and & as they are.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return `""`
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (h *builtins) sleep(_ context.Context, call Call) (Result, error) {
	p, ok := call.Action.Params.(*Sleep)
	if !ok {
		return Result{}, fmt.Errorf("sleep got parameters of type %T", call.Action.Params)
	}
	d, capped := h.deps.SleepDefault, false
	if p.Duration != nil {
		// Compared in milliseconds before converting: a huge duration
		// would overflow time.Duration and wrap around.
		ms := max(*p.Duration, 0)
		if ms > int64(h.deps.SleepMax/time.Millisecond) {
			capped = true
		} else {
			d = time.Duration(ms) * time.Millisecond
		}
	}
	text := fmt.Sprintf("sleeping for %s; a new message wakes you earlier", d)
	if capped || d > h.deps.SleepMax {
		d = h.deps.SleepMax
		text = fmt.Sprintf("sleeping for %s (the longest allowed); a new message wakes you earlier", d)
	}
	if d <= 0 {
		return Result{OK: true, Answered: true, Text: "a sleep of zero ends this turn"}, nil
	}
	return Result{OK: true, Answered: true, Sleep: d, Text: text}, nil
}

func (h *builtins) cont(context.Context, Call) (Result, error) {
	return Result{OK: true, Answered: true, Text: "waiting for something new"}, nil
}

func (h *builtins) brk(ctx context.Context, call Call) (Result, error) {
	if err := h.deps.Store.ClearActions(ctx, call.Channel); err != nil {
		return Result{}, fmt.Errorf("clear action history of %q: %w", call.Channel, err)
	}
	return Result{OK: true, Answered: true, Text: "action history cleared"}, nil
}

func (h *builtins) list(ctx context.Context, _ Call) (Result, error) {
	chans, err := h.visibleChannels(ctx)
	if err != nil {
		return Result{}, err
	}
	counts, err := h.deps.Store.UnreadCounts(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("count unread: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d channel(s):\n", len(chans))
	for _, c := range chans {
		kind := "direct"
		if c.Group {
			kind = "group"
		}
		fmt.Fprintf(&b, "- id=%s %s on %s, title %s, %d unread\n", quote(c.ID), kind, c.Platform, quote(prompts.Clip(c.Title, prompts.MaxTitleRunes)), counts[c.ID])
	}
	return Result{OK: true, Next: true, Text: b.String()}, nil
}

func deref(r *Result) Result {
	if r == nil {
		return Result{}
	}
	return *r
}

// botName is the name the bot's own stored messages carry now.
func (d HandlerDeps) botName() string {
	if d.Name != nil {
		if n := d.Name(); n != "" {
			return n
		}
	}
	return d.BotName
}
