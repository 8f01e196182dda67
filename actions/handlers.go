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

	"github.com/airi-go/airi/planner/tokens"
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
	UnreadCounts(ctx context.Context) (map[string]int, error)
	ClearActions(ctx context.Context, channelID string) error
	Ingest(ctx context.Context, msg state.Message) (state.Message, bool, error)
	AddOutbox(ctx context.Context, e state.OutboxEntry) (int64, error)
	SetOutboxState(ctx context.Context, id int64, st state.OutboxState, platformID, errText string) error
}

// Sender delivers a message to the platform of its channel. out.ChannelID
// is the id the model sees. An error wrapping state.ErrOutcomeUnknown means the
// message may have gone out.
type Sender interface {
	Send(ctx context.Context, out state.Outgoing) (platformID string, err error)
}

// HandlerDeps configures the built-in handlers.
type HandlerDeps struct {
	Store  Store
	Sender Sender
	// BotName is the name the bot's own stored messages carry.
	BotName string
	// Allowed, when non-nil, says whether the bot may act in a channel.
	Allowed func(channelID string) bool
	// SleepDefault is used when sleep has no duration; SleepMax bounds it.
	SleepDefault, SleepMax time.Duration
	// ReadLimit bounds how many messages one read returns (default 50).
	ReadLimit int
	// ReadTokens bounds the messages one read returns by their o200k
	// tokens (default 2000): the result is shown in the next request,
	// whose budget it shares. At least one message is returned, cut to fit.
	ReadTokens int
	Now        func() time.Time
}

// NewHandlers returns the built-in handlers bound to deps.
func NewHandlers(deps HandlerDeps) Handlers {
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.SleepDefault <= 0 {
		deps.SleepDefault = 30 * time.Second
	}
	if deps.SleepMax <= 0 {
		deps.SleepMax = 10 * time.Minute
	}
	if deps.ReadLimit <= 0 {
		deps.ReadLimit = 50
	}
	if deps.ReadTokens <= 0 {
		deps.ReadTokens = 2000
	}
	h := &builtins{deps: deps, tok: tokens.New()}
	return Handlers{
		SendMessage:  HandlerFunc(h.send),
		ReadUnread:   HandlerFunc(h.read),
		Sleep:        HandlerFunc(h.sleep),
		Continue:     HandlerFunc(h.cont),
		Break:        HandlerFunc(h.brk),
		ListChannels: HandlerFunc(h.list),
	}
}

type builtins struct {
	deps HandlerDeps
	tok  *tokens.Counter
}

// channel resolves a channel id named by the model, or explains which ids exist.
func (h *builtins) channel(ctx context.Context, id string) (state.Channel, *Result, error) {
	ch, err := h.deps.Store.Channel(ctx, id)
	if errors.Is(err, state.ErrNotFound) {
		known, lerr := h.deps.Store.Channels(ctx)
		if lerr != nil {
			return ch, nil, fmt.Errorf("list channels: %w", lerr)
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
	if h.deps.Allowed != nil && !h.deps.Allowed(id) {
		return ch, &Result{Next: true, Text: fmt.Sprintf("channel %q is not open to you; act only in the channels you are allowed in", id)}, nil
	}
	return ch, nil, nil
}

func (h *builtins) send(ctx context.Context, call Call) (Result, error) {
	p, ok := call.Action.Params.(*SendMessage)
	if !ok {
		return Result{}, fmt.Errorf("send_message got parameters of type %T", call.Action.Params)
	}
	ch, refusal, err := h.channel(ctx, p.ChannelID)
	if err != nil || refusal != nil {
		return deref(refusal), err
	}
	content := strings.TrimSpace(strings.ReplaceAll(p.Content, SilentToken, ""))
	if content == "" {
		// Silence ends the turn unless the model asked for more.
		more := p.Then == ThenNext
		return Result{OK: true, Next: more, EndsTurn: !more, Answered: ch.ID == call.Channel, Text: "nothing sent: you chose to stay silent"}, nil
	}
	if call.MayAbort {
		unread, err := h.deps.Store.Unread(ctx, ch.ID, 0)
		if err != nil {
			return Result{}, fmt.Errorf("check unread of %q: %w", ch.ID, err)
		}
		fresh := 0
		for _, m := range unread {
			if m.ID > call.Watermark {
				fresh++
			}
		}
		if fresh > 0 {
			return Result{Next: true, Aborted: true, Text: fmt.Sprintf(
				"not sent: %d new message(s) arrived in %q while you were deciding. Look at them first, then send your reply again if it still fits.", fresh, ch.ID)}, nil
		}
	}
	now := h.deps.Now()
	id, err := h.deps.Store.AddOutbox(ctx, state.OutboxEntry{ChannelID: ch.ID, Content: content, ReplyTo: p.ReplyTo, State: state.OutboxPending, Created: now, Updated: now})
	if err != nil {
		return Result{}, fmt.Errorf("record send in outbox: %w", err)
	}
	platformID, sendErr := h.deps.Sender.Send(ctx, state.Outgoing{ChannelID: ch.ID, Content: content, ReplyTo: p.ReplyTo})
	if sendErr != nil {
		st := state.OutboxFailed
		text := fmt.Sprintf("send to %q failed: %v", ch.ID, sendErr)
		if errors.Is(sendErr, state.ErrOutcomeUnknown) {
			st = state.OutboxUnknown
			text = fmt.Sprintf("the send to %q may or may not have gone out (%v); it will not be repeated automatically", ch.ID, sendErr)
		}
		// Recording the outcome must survive a cancelled tick.
		if err := h.deps.Store.SetOutboxState(context.WithoutCancel(ctx), id, st, "", sendErr.Error()); err != nil {
			return Result{}, fmt.Errorf("record failed send: %w", err)
		}
		return Result{Next: true, Text: text}, nil
	}
	bg := context.WithoutCancel(ctx)
	if err := h.deps.Store.SetOutboxState(bg, id, state.OutboxDone, platformID, ""); err != nil {
		return Result{}, fmt.Errorf("record send: %w", err)
	}
	if _, _, err := h.deps.Store.Ingest(bg, state.Message{
		ChannelID: ch.ID, PlatformID: platformID, SenderName: h.deps.BotName, Self: true,
		Content: content, ReplyTo: p.ReplyTo, Time: now, Read: true,
	}); err != nil {
		return Result{}, fmt.Errorf("store sent message: %w", err)
	}
	return Result{
		OK: true, Next: true, Answered: ch.ID == call.Channel, EndsTurn: p.Then != ThenNext,
		Text:    fmt.Sprintf("sent to %q", ch.ID),
		Effects: []Effect{{Kind: "send", ChannelID: ch.ID, Content: content, ReplyTo: p.ReplyTo, MessageID: platformID}},
	}, nil
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
	d := h.deps.SleepDefault
	if p.Duration != nil {
		d = time.Duration(*p.Duration) * time.Millisecond
	}
	text := fmt.Sprintf("sleeping for %s; a new message wakes you earlier", d)
	if d > h.deps.SleepMax {
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
	chans, err := h.deps.Store.Channels(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("list channels: %w", err)
	}
	counts, err := h.deps.Store.UnreadCounts(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("count unread: %w", err)
	}
	sort.Slice(chans, func(i, j int) bool { return chans[i].ID < chans[j].ID })
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
