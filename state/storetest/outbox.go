package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/airi-go/airi/state"
)

func normOutbox(es []state.OutboxEntry) []state.OutboxEntry {
	out := make([]state.OutboxEntry, len(es))
	for i, e := range es {
		e.Created = e.Created.UTC().Round(0)
		e.Updated = e.Updated.UTC().Round(0)
		out[i] = e
	}
	return out
}

func testOutbox(t *testing.T, s state.Store) {
	ctx := context.Background()
	if p, err := s.PendingOutbox(ctx); err != nil || len(p) != 0 {
		t.Errorf("PendingOutbox on empty = %v, %v", p, err)
	}
	if _, err := s.AddOutbox(ctx, state.OutboxEntry{Content: "x"}); err == nil {
		t.Error("AddOutbox without channel: no error")
	}
	var entries []state.OutboxEntry
	for i := range 4 {
		e := state.OutboxEntry{ChannelID: fmt.Sprint("c", i%2), Content: fmt.Sprint("reply ", i), ReplyTo: "p1",
			Created: at(i), Updated: at(i)}
		if i == 3 {
			e.Kind, e.Content = state.OutboxReaction, "👍"
		}
		if i > 0 {
			e.State = state.OutboxPending
		}
		id, err := s.AddOutbox(ctx, e)
		if err != nil {
			t.Fatalf("AddOutbox: %v", err)
		}
		if len(entries) > 0 && id <= entries[len(entries)-1].ID {
			t.Errorf("outbox id %d not increasing", id)
		}
		e.ID = id
		e.State = state.OutboxPending // empty means pending
		entries = append(entries, e)
	}
	got, err := s.PendingOutbox(ctx)
	if err != nil {
		t.Fatalf("PendingOutbox: %v", err)
	}
	equal(t, "PendingOutbox", normOutbox(got), normOutbox(entries))

	if err := s.SetOutboxState(ctx, entries[0].ID, state.OutboxDone, "m-77", ""); err != nil {
		t.Fatalf("SetOutboxState done: %v", err)
	}
	if err := s.SetOutboxState(ctx, entries[2].ID, state.OutboxFailed, "", "403 forbidden"); err != nil {
		t.Fatalf("SetOutboxState failed: %v", err)
	}
	if err := s.SetOutboxState(ctx, entries[3].ID, state.OutboxUnknown, "", "crashed"); err != nil {
		t.Fatalf("SetOutboxState unknown: %v", err)
	}
	// Recording an outcome on a pending entry keeps it pending with the details.
	if err := s.SetOutboxState(ctx, entries[1].ID, state.OutboxPending, "m-78", "retrying"); err != nil {
		t.Fatalf("SetOutboxState pending: %v", err)
	}
	got, err = s.PendingOutbox(ctx)
	if err != nil {
		t.Fatalf("PendingOutbox: %v", err)
	}
	if len(got) != 1 || got[0].ID != entries[1].ID || got[0].PlatformID != "m-78" || got[0].Error != "retrying" {
		t.Errorf("PendingOutbox after outcomes = %+v, want entry %d with its details", got, entries[1].ID)
	} else if got[0].Updated.Before(got[0].Created) {
		t.Errorf("Updated %v before Created %v", got[0].Updated, got[0].Created)
	}
	if err := s.SetOutboxState(ctx, 1<<40, state.OutboxDone, "", ""); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("SetOutboxState(unknown) = %v, want ErrNotFound", err)
	}

	// Zero times are stamped by the store.
	id, err := s.AddOutbox(ctx, state.OutboxEntry{ChannelID: "c9", Content: "stamped"})
	if err != nil {
		t.Fatalf("AddOutbox: %v", err)
	}
	got, err = s.PendingOutbox(ctx)
	if err != nil {
		t.Fatalf("PendingOutbox: %v", err)
	}
	if e := got[len(got)-1]; e.ID != id || e.State != state.OutboxPending || e.Created.IsZero() || e.Updated.IsZero() {
		t.Errorf("entry added with zero times = %+v, want pending with both times set", e)
	}
}
