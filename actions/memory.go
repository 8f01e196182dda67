package actions

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/state"
)

// Names of the memory actions.
const (
	NameRemember = "remember"
	NameForget   = "forget"
)

// Remember keeps a lasting fact beyond the history window, or rewrites one.
type Remember struct {
	// Scope is user (one person, private to direct chats with them
	// unless Shareable), channel (this chat only) or global (everywhere).
	Scope string `json:"scope" jsonschema:"enum=user,enum=channel,enum=global"`
	// About is the person's name or user id; omitted in a direct chat.
	About     string `json:"about,omitempty"`
	Content   string `json:"content" jsonschema:"minLength=1,maxLength=500"`
	Shareable bool   `json:"shareable,omitempty"`
	// ID names a note to rewrite.
	ID string `json:"id,omitempty"`
}

// Forget deletes a memory note.
type Forget struct {
	ID string `json:"id" jsonschema:"minLength=1"`
}

// NoteStore is what the memory actions need from the state.
type NoteStore interface {
	SaveNote(ctx context.Context, n state.Note, lim state.NoteLimits) (state.Note, []state.Note, error)
	Note(ctx context.Context, id int64) (state.Note, error)
	DeleteNote(ctx context.Context, id int64) error
}

// memoryWindow is how many recent messages of a channel the memory
// actions look at to find the people a note may be about, as many as the
// default history window shows.
const memoryWindow = 20

// notes returns the note store, or a result saying memory is off.
func (h *builtins) notes() (NoteStore, *Result) {
	if h.deps.Notes != nil {
		return h.deps.Notes, nil
	}
	if ns, ok := h.deps.Store.(NoteStore); ok {
		return ns, nil
	}
	return nil, &Result{Next: true, Text: "memory is not available here: nothing was remembered or forgotten"}
}

// recent returns the channel's recent messages: the history window and
// what is unread.
func (h *builtins) recent(ctx context.Context, ch state.Channel) ([]state.Message, error) {
	hist, _, err := h.deps.Store.History(ctx, ch.ID, memoryWindow)
	if err != nil {
		return nil, fmt.Errorf("read history of %q: %w", ch.ID, err)
	}
	unread, err := h.deps.Store.Unread(ctx, ch.ID, memoryWindow)
	if err != nil {
		return nil, fmt.Errorf("read unread of %q: %w", ch.ID, err)
	}
	return append(hist, unread...), nil
}

// refuse is the result of a memory action that changed nothing.
func refuse(format string, args ...any) Result {
	return Result{Next: true, Text: "nothing remembered: " + fmt.Sprintf(format, args...)}
}

func (h *builtins) remember(ctx context.Context, call Call) (Result, error) {
	p, ok := call.Action.Params.(*Remember)
	if !ok {
		return Result{}, fmt.Errorf("remember got parameters of type %T", call.Action.Params)
	}
	store, off := h.notes()
	if off != nil {
		return *off, nil
	}
	scope := state.NoteScope(strings.ToLower(strings.TrimSpace(p.Scope)))
	if err := scope.Validate(); err != nil {
		return refuse("%v", err), nil
	}
	text := strings.TrimSpace(p.Content)
	if text == "" {
		return refuse("the content is empty; write the fact to keep"), nil
	}
	if n := utf8.RuneCountInString(text); n > state.MaxNoteRunes {
		return refuse("the content has %d characters, more than the %d a note may hold; keep only the lasting fact", n, state.MaxNoteRunes), nil
	}
	ch, err := h.deps.Store.Channel(ctx, call.Channel)
	if err != nil {
		return Result{}, fmt.Errorf("look up channel %q: %w", call.Channel, err)
	}
	msgs, err := h.recent(ctx, ch)
	if err != nil {
		return Result{}, err
	}
	view := state.ViewOf(ch, msgs)

	if strings.TrimSpace(p.ID) != "" {
		old, res := h.visibleNote(ctx, store, p.ID, view, "nothing remembered")
		if res != nil {
			return *res, nil
		}
		note := old
		note.Text, note.Updated, note.Shareable = text, h.deps.Now(), p.Shareable && old.Scope == state.ScopeUser
		saved, evicted, err := store.SaveNote(ctx, note, h.limits(old.Scope))
		if err != nil {
			return Result{}, fmt.Errorf("update note %d: %w", old.ID, err)
		}
		return h.noted("rewrote", saved, evicted, call.Channel), nil
	}

	note := state.Note{Scope: scope, Text: text}
	switch scope {
	case state.ScopeChannel:
		note.Subject = ch.ID
	case state.ScopeUser:
		who, res := resolvePerson(ch, msgs, view, p.About)
		if res != nil {
			return *res, nil
		}
		note.Subject, note.Name, note.Shareable = who.SenderID, prompts.Clip(who.SenderName, prompts.MaxNameRunes), p.Shareable
	}
	now := h.deps.Now()
	note.Created, note.Updated = now, now
	saved, evicted, err := store.SaveNote(ctx, note, h.limits(scope))
	if err != nil {
		return Result{}, fmt.Errorf("save note: %w", err)
	}
	return h.noted("remembered", saved, evicted, call.Channel), nil
}

// limits returns the caps of a scope.
func (h *builtins) limits(scope state.NoteScope) state.NoteLimits {
	if h.deps.NoteLimits != nil {
		return h.deps.NoteLimits(scope)
	}
	return state.DefaultNoteLimits(scope)
}

// noted is the result of a stored note.
func (h *builtins) noted(verb string, n state.Note, evicted []state.Note, channel string) Result {
	var b strings.Builder
	fmt.Fprintf(&b, "%s note %d (%s)", verb, n.ID, describeNote(n))
	if len(evicted) > 0 {
		ids := make([]string, len(evicted))
		for i, e := range evicted {
			ids[i] = strconv.FormatInt(e.ID, 10)
		}
		fmt.Fprintf(&b, "; to make room, the least recently used note(s) %s were forgotten", strings.Join(ids, ", "))
	}
	return Result{OK: true, Next: true, Text: b.String(), Notes: []int64{n.ID},
		Effects: []Effect{{Kind: EffectRemember, ChannelID: channel, Content: n.Text, MessageID: strconv.FormatInt(n.ID, 10)}}}
}

// Kinds of effects the memory actions record with their tick.
const (
	EffectRemember = "remember"
	EffectForget   = "forget"
)

// describeNote says whom a note is about and who sees it, for results.
func describeNote(n state.Note) string {
	switch n.Scope {
	case state.ScopeUser:
		who := n.Name
		if who == "" {
			who = n.Subject
		}
		if n.Shareable {
			return fmt.Sprintf("about %s, also shown in groups they are in", prompts.Quote(who))
		}
		return fmt.Sprintf("about %s, shown only in direct chats with them", prompts.Quote(who))
	case state.ScopeChannel:
		return "about this chat, shown only here"
	}
	return "global, shown everywhere"
}

// resolvePerson finds whom a user note is about: the person named by
// about (a sender id or a display name among the channel's recent
// messages), or in a direct chat the person of that chat.
func resolvePerson(ch state.Channel, msgs []state.Message, view state.NoteView, about string) (state.Message, *Result) {
	about = strings.TrimPrefix(strings.TrimSpace(about), "@")
	var people []state.Message
	seen := map[string]bool{}
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Self || m.SenderID == "" || seen[m.SenderID] {
			continue
		}
		seen[m.SenderID] = true
		people = append(people, m)
	}
	if about == "" {
		if ch.Group {
			r := refuse("in a group, say whom the note is about with \"about\": their name as shown in the chat or their user id")
			return state.Message{}, &r
		}
		for _, m := range people {
			if m.SenderID == view.Person {
				return m, nil
			}
		}
		r := refuse("no one has written here yet, so there is no one to remember this about")
		return state.Message{}, &r
	}
	for _, m := range people {
		// Sender ids are platform-qualified ("telegram:501"); the bare
		// number names the same person within the chat.
		if m.SenderID == about || strings.HasSuffix(m.SenderID, ":"+about) {
			return m, nil
		}
	}
	for _, m := range people {
		if strings.EqualFold(m.SenderName, about) {
			return m, nil
		}
	}
	names := make([]string, len(people))
	for i, m := range people {
		names[i] = prompts.Quote(prompts.Clip(m.SenderName, prompts.MaxNameRunes))
	}
	known := "no one"
	if len(names) > 0 {
		known = strings.Join(names, ", ")
	}
	r := refuse("no one called %s wrote here recently; people here: %s", prompts.Quote(about), known)
	return state.Message{}, &r
}

// visibleNote looks up the note named by id among those this channel may
// see; a note it may not see reads as unknown.
func (h *builtins) visibleNote(ctx context.Context, store NoteStore, id string, view state.NoteView, nothing string) (state.Note, *Result) {
	n, err := strconv.ParseInt(strings.TrimSpace(id), 10, 64)
	if err != nil || n <= 0 {
		return state.Note{}, &Result{Next: true, Text: fmt.Sprintf("%s: %s is not a note id; ids are the numbers shown under Memory", nothing, prompts.Quote(id))}
	}
	note, err := store.Note(ctx, n)
	if err == nil && !view.Sees(note) {
		err = state.ErrNotFound
	}
	if errors.Is(err, state.ErrNotFound) {
		return state.Note{}, &Result{Next: true, Text: fmt.Sprintf("%s: there is no note %d here; ids are the numbers shown under Memory", nothing, n)}
	}
	if err != nil {
		return state.Note{}, &Result{Next: true, Text: fmt.Sprintf("%s: note %d could not be read: %v", nothing, n, err)}
	}
	return note, nil
}

func (h *builtins) forget(ctx context.Context, call Call) (Result, error) {
	p, ok := call.Action.Params.(*Forget)
	if !ok {
		return Result{}, fmt.Errorf("forget got parameters of type %T", call.Action.Params)
	}
	store, off := h.notes()
	if off != nil {
		return *off, nil
	}
	ch, err := h.deps.Store.Channel(ctx, call.Channel)
	if err != nil {
		return Result{}, fmt.Errorf("look up channel %q: %w", call.Channel, err)
	}
	msgs, err := h.recent(ctx, ch)
	if err != nil {
		return Result{}, err
	}
	note, res := h.visibleNote(ctx, store, p.ID, state.ViewOf(ch, msgs), "nothing forgotten")
	if res != nil {
		return *res, nil
	}
	if err := store.DeleteNote(ctx, note.ID); err != nil && !errors.Is(err, state.ErrNotFound) {
		return Result{}, fmt.Errorf("delete note %d: %w", note.ID, err)
	}
	return Result{OK: true, Next: true, Text: fmt.Sprintf("forgot note %d (%s)", note.ID, describeNote(note)),
		Effects: []Effect{{Kind: EffectForget, ChannelID: call.Channel, MessageID: strconv.FormatInt(note.ID, 10)}}}, nil
}
