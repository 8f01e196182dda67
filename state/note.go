package state

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// NoteScope says whom a memory note is about and who may see it.
type NoteScope string

// Note scopes.
const (
	// ScopeUser notes are about one person (Subject is their sender id).
	// They are shown in direct chats with that person, and in a group only
	// when Shareable and the person is among the group's recent speakers.
	ScopeUser NoteScope = "user"
	// ScopeChannel notes are about one chat (Subject is its channel id)
	// and shown only there.
	ScopeChannel NoteScope = "channel"
	// ScopeGlobal notes are the bot's own knowledge, shown everywhere.
	ScopeGlobal NoteScope = "global"
)

// Scopes lists the note scopes in the order notes are shown and exported.
func Scopes() []NoteScope { return []NoteScope{ScopeGlobal, ScopeChannel, ScopeUser} }

// Validate reports an unknown scope.
func (s NoteScope) Validate() error {
	switch s {
	case ScopeUser, ScopeChannel, ScopeGlobal:
		return nil
	}
	return fmt.Errorf("unknown scope %q: want user, channel or global", string(s))
}

// MaxNoteRunes bounds the text of one note, in characters.
const MaxNoteRunes = 500

// Note is one fact the bot keeps beyond the history window.
type Note struct {
	// ID is assigned by the store, increasing, never reused.
	ID    int64     `json:"id"`
	Scope NoteScope `json:"scope"`
	// Subject is the person's sender id (user), the channel id (channel),
	// or empty (global).
	Subject string `json:"subject,omitempty"`
	// Name is the person's display name when the note was written (user
	// notes), for people and prompts; the subject is the key.
	Name      string    `json:"name,omitempty"`
	Text      string    `json:"text"`
	Shareable bool      `json:"shareable,omitempty"`
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
	// Used is when the note was last shown to the model (zero: never);
	// the least recently used note is evicted first.
	Used time.Time `json:"used,omitzero"`
	// Tick is the id of the tick whose action wrote the note (0 when an
	// operator wrote it, or before the tick is recorded).
	Tick int64 `json:"tick,omitempty"`
}

// Prepared returns the note as a store saves it: its text trimmed, its
// creation and update times set to now where unset, and validated.
func (n Note) Prepared(now time.Time) (Note, error) {
	n.Text = strings.TrimSpace(CleanText(n.Text))
	n.Subject, n.Name = CleanText(n.Subject), CleanText(n.Name)
	if err := n.Validate(); err != nil {
		return Note{}, err
	}
	if n.Created.IsZero() {
		n.Created = now
	}
	if n.Updated.IsZero() {
		n.Updated = now
	}
	return n, nil
}

// Validate reports what is wrong with a note about to be stored, in words
// the model can act on.
func (n Note) Validate() error {
	var errs []error
	if err := n.Scope.Validate(); err != nil {
		errs = append(errs, err)
	}
	switch n.Scope {
	case ScopeUser:
		if strings.TrimSpace(n.Subject) == "" {
			errs = append(errs, errors.New("a user note needs the person it is about"))
		}
	case ScopeChannel:
		if strings.TrimSpace(n.Subject) == "" {
			errs = append(errs, errors.New("a channel note needs its channel"))
		}
	case ScopeGlobal:
		if n.Subject != "" {
			errs = append(errs, errors.New("a global note is about no one in particular: no subject"))
		}
	}
	if n.Shareable && n.Scope != ScopeUser {
		errs = append(errs, errors.New("only user notes can be shareable"))
	}
	text := strings.TrimSpace(n.Text)
	switch {
	case text == "":
		errs = append(errs, errors.New("the note's text is empty"))
	case utf8.RuneCountInString(text) > MaxNoteRunes:
		errs = append(errs, fmt.Errorf("the note's text has %d characters, more than the %d a note may hold: keep only the lasting fact", utf8.RuneCountInString(text), MaxNoteRunes))
	case !utf8.ValidString(text):
		errs = append(errs, errors.New("the note's text is not valid UTF-8"))
	}
	return errors.Join(errs...)
}

// Runes is the size of the note's text in characters, what the caps count.
func (n Note) Runes() int { return utf8.RuneCountInString(n.Text) }

// NoteLimits cap the notes of one scope and subject (one person, one
// channel, or the global notes): at most MaxNotes notes of at most
// MaxRunes characters together. Zero fields mean no cap.
type NoteLimits struct {
	MaxNotes int
	MaxRunes int
}

// DefaultNoteLimits returns the caps of a scope.
func DefaultNoteLimits(scope NoteScope) NoteLimits {
	switch scope {
	case ScopeUser:
		return NoteLimits{MaxNotes: 20, MaxRunes: 2000}
	case ScopeChannel:
		return NoteLimits{MaxNotes: 30, MaxRunes: 3000}
	default:
		return NoteLimits{MaxNotes: 30, MaxRunes: 3000}
	}
}

// Over reports whether notes (one scope and subject) exceed the limits.
func (l NoteLimits) Over(notes []Note) bool {
	runes := 0
	for _, n := range notes {
		runes += n.Runes()
	}
	return (l.MaxNotes > 0 && len(notes) > l.MaxNotes) || (l.MaxRunes > 0 && runes > l.MaxRunes)
}

// Evictions returns the notes to drop from notes (one scope and subject)
// so that they fit the limits: the least recently used first (never used
// counts as oldest, then by last update, then id), never keep. Both store
// engines evict with it, so they agree on what goes.
func (l NoteLimits) Evictions(notes []Note, keep int64) []Note {
	if !l.Over(notes) {
		return nil
	}
	order := make([]Note, 0, len(notes))
	for _, n := range notes {
		if n.ID != keep {
			order = append(order, n)
		}
	}
	lru := func(a, b Note) bool {
		au, bu := lastUse(a), lastUse(b)
		if !au.Equal(bu) {
			return au.Before(bu)
		}
		return a.ID < b.ID
	}
	sort.SliceStable(order, func(i, j int) bool { return lru(order[i], order[j]) })
	left := append([]Note(nil), notes...)
	var out []Note
	for _, victim := range order {
		if !l.Over(left) {
			break
		}
		out = append(out, victim)
		for i, n := range left {
			if n.ID == victim.ID {
				left = append(left[:i], left[i+1:]...)
				break
			}
		}
	}
	return out
}

// lastUse is when a note was last shown or, never shown, last written.
func lastUse(n Note) time.Time {
	if n.Used.After(n.Updated) {
		return n.Used
	}
	return n.Updated
}

// NoteView says which notes one channel may see: the global notes, the
// channel notes of Channel, every user note about Person (the other side
// of a direct chat) and the shareable user notes about Shared (the people
// in a group's window). Never a private user note in a group.
type NoteView struct {
	Channel string
	Person  string
	Shared  []string
}

// Sees reports whether a channel with view v may see note n.
func (v NoteView) Sees(n Note) bool {
	switch n.Scope {
	case ScopeGlobal:
		return true
	case ScopeChannel:
		return n.Subject == v.Channel && v.Channel != ""
	case ScopeUser:
		if v.Person != "" && n.Subject == v.Person {
			return true
		}
		if !n.Shareable {
			return false
		}
		for _, s := range v.Shared {
			if s == n.Subject {
				return true
			}
		}
	}
	return false
}

// NoteFilter selects notes for operators: by scope and subject (empty
// fields match everything), or every note a channel's view sees.
type NoteFilter struct {
	Scope   NoteScope
	Subject string
	// View, when set, keeps only the notes it sees.
	View *NoteView
}

// Forgotten counts what ForgetUser deleted.
type Forgotten struct {
	Notes    int `json:"notes"`
	Messages int `json:"messages"`
	// Channels are the direct chats with the person whose whole record
	// (messages, action history, ticks, outbox) was deleted.
	Channels []string `json:"channels,omitempty"`
}

// NoteStore is the memory part of the Store contract.
type NoteStore interface {
	// SaveNote stores n: a new note when n.ID is 0, otherwise it replaces
	// the text, name, shareable flag and tick of note n.ID (scope and
	// subject stay; ErrNotFound when it does not exist). Zero Created and
	// Updated are set to now. Then, while the notes of the same scope and
	// subject exceed lim, the least recently used other note is deleted
	// (NoteLimits.Evictions); those are returned. An invalid note
	// (Note.Validate) stores nothing.
	SaveNote(ctx context.Context, n Note, lim NoteLimits) (saved Note, evicted []Note, err error)
	// Note returns one note, or ErrNotFound.
	Note(ctx context.Context, id int64) (Note, error)
	// Notes returns the notes f selects, ordered by scope (global,
	// channel, user), subject, then id: a stable order for prompts.
	Notes(ctx context.Context, f NoteFilter) ([]Note, error)
	// DeleteNote deletes one note; ErrNotFound when it does not exist.
	DeleteNote(ctx context.Context, id int64) error
	// TouchNotes records that the notes were shown at time at.
	TouchNotes(ctx context.Context, ids []int64, at time.Time) error
	// SetNoteTick records the tick that wrote the notes.
	SetNoteTick(ctx context.Context, ids []int64, tick int64) error
	// ForgetUser deletes everything kept about a person: the user notes
	// about them, the messages they sent in every channel, the reminders
	// they asked for and, for each direct chat in which no one else
	// wrote, that chat's whole record.
	ForgetUser(ctx context.Context, userID string) (Forgotten, error)
}

// SortNotes orders notes as NoteStore.Notes returns them.
func SortNotes(notes []Note) {
	rank := map[NoteScope]int{ScopeGlobal: 0, ScopeChannel: 1, ScopeUser: 2}
	less := func(a, b Note) bool {
		if rank[a.Scope] != rank[b.Scope] {
			return rank[a.Scope] < rank[b.Scope]
		}
		if a.Subject != b.Subject {
			return a.Subject < b.Subject
		}
		return a.ID < b.ID
	}
	sort.SliceStable(notes, func(i, j int) bool { return less(notes[i], notes[j]) })
}

// ViewOf returns the view of notes a channel has, given its recent
// messages (the history window and what is new, in any order): in a
// direct chat, every note about the person who writes there (the newest
// sender other than the bot); in a group, the shareable notes about the
// people who wrote in msgs.
func ViewOf(ch Channel, msgs []Message) NoteView {
	v := NoteView{Channel: ch.ID}
	if !ch.Group {
		var newest Message
		for _, m := range msgs {
			if !m.Self && m.SenderID != "" && (newest.SenderID == "" || m.ID > newest.ID) {
				newest = m
			}
		}
		v.Person = newest.SenderID
		return v
	}
	seen := map[string]bool{}
	for _, m := range msgs {
		if m.Self || m.SenderID == "" || seen[m.SenderID] {
			continue
		}
		seen[m.SenderID] = true
		v.Shared = append(v.Shared, m.SenderID)
	}
	sort.Strings(v.Shared)
	return v
}
