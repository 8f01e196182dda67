package planner

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/state"
)

// NoteSource gives the builder the memory notes a channel may see.
type NoteSource interface {
	// Notes returns the notes f selects, in the store's stable order.
	Notes(ctx context.Context, f state.NoteFilter) ([]state.Note, error)
	// TouchNotes records that the notes were shown at time at.
	TouchNotes(ctx context.Context, ids []int64, at time.Time) error
}

// NoteChecker is a NoteSource that can tell cheaply whether any note
// exists at all. Until one does, the builder asks it instead of reading a
// channel's notes; once one does, it reads them every tick as a plain
// NoteSource.
type NoteChecker interface {
	// HasNotes reports whether any note is stored; notes saved by other
	// processes count, at once or within the moments the store
	// documents.
	HasNotes(ctx context.Context) (bool, error)
}

// touchEvery is how stale a note's last use may get before showing it
// records the use again: eviction needs the order of uses, not every one,
// and a request should not write to the store each time.
const touchEvery = time.Hour

// memory returns the notes of the tick's channel as the memory section
// shows them: Input.Notes when the caller gathered them, otherwise those
// of BuilderOptions.Notes that the channel's view sees (global notes, the
// channel's own, every note about the person of a direct chat, the
// shareable notes about the people in a group's window).
func (b *Builder) memory(ctx context.Context, in Input) ([]prompts.Note, error) {
	notes := in.Notes
	if notes == nil && b.opts.Notes != nil {
		if c, ok := b.opts.Notes.(NoteChecker); ok && !b.notesExist.Load() {
			has, err := c.HasNotes(ctx)
			if err != nil {
				return nil, fmt.Errorf("read memory notes: %w", err)
			}
			if !has {
				return nil, nil
			}
			b.notesExist.Store(true)
		}
		msgs := append(append([]state.Message(nil), in.History...), in.Incoming...)
		view := state.ViewOf(in.Channel, msgs)
		var err error
		notes, err = b.opts.Notes.Notes(ctx, state.NoteFilter{View: &view})
		if err != nil {
			return nil, fmt.Errorf("read memory notes: %w", err)
		}
		var stale []int64
		for _, n := range notes {
			if !in.Now.IsZero() && n.Used.Before(in.Now.Add(-touchEvery)) {
				stale = append(stale, n.ID)
			}
		}
		if len(stale) > 0 {
			// A use not recorded only makes eviction less exact.
			_ = b.opts.Notes.TouchNotes(ctx, stale, in.Now)
		}
	}
	if len(notes) == 0 {
		return nil, nil
	}
	out := make([]prompts.Note, len(notes))
	for i, n := range notes {
		about := n.Name
		if about == "" {
			about = n.Subject
		}
		out[i] = prompts.Note{
			ID: strconv.FormatInt(n.ID, 10), Scope: string(n.Scope),
			About: prompts.Clip(about, prompts.MaxNameRunes), Text: n.Text, Shareable: n.Shareable,
		}
	}
	return out, nil
}
