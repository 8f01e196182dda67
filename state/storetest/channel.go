package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/airi-go/airi/state"
)

func testChannels(t *testing.T, s state.Store) {
	ctx := context.Background()
	if _, err := s.Channel(ctx, "nope"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("Channel(unknown) error = %v, want ErrNotFound", err)
	}
	chs, err := s.Channels(ctx)
	if err != nil || len(chs) != 0 {
		t.Errorf("Channels on empty store = %v, %v; want none", chs, err)
	}
	if err := s.UpsertChannel(ctx, state.Channel{ID: "", Platform: "console"}); err == nil {
		t.Error("UpsertChannel with empty id: no error")
	}
	if err := s.UpsertChannel(ctx, state.Channel{ID: "x", Platform: ""}); err == nil {
		t.Error("UpsertChannel with empty platform: no error")
	}

	b := state.Channel{ID: "telegram:-100", Platform: "telegram", NativeID: "-100", Group: true,
		Title: "Cats", Members: []string{"Ann", "Bob"}}
	a := state.Channel{ID: "console", Platform: "console"}
	for _, ch := range []state.Channel{b, a} {
		if err := s.UpsertChannel(ctx, ch); err != nil {
			t.Fatalf("UpsertChannel(%q): %v", ch.ID, err)
		}
	}
	got, err := s.Channel(ctx, b.ID)
	if err != nil {
		t.Fatalf("Channel(%q): %v", b.ID, err)
	}
	equal(t, "Channel", got, b)
	chs, err = s.Channels(ctx)
	if err != nil {
		t.Fatalf("Channels: %v", err)
	}
	equal(t, "Channels (ordered by id)", chs, []state.Channel{a, b})

	tests := []struct {
		name   string
		update state.Channel
		want   state.Channel
	}{
		{
			name:   "empty title and nil members keep the stored ones",
			update: state.Channel{ID: b.ID, Platform: "telegram", NativeID: "-100", Group: true},
			want:   b,
		},
		{
			name:   "title, kind and members replace",
			update: state.Channel{ID: b.ID, Platform: "telegram", NativeID: "-100", Group: false, Title: "Dogs", Members: []string{"Cy"}},
			want:   state.Channel{ID: b.ID, Platform: "telegram", NativeID: "-100", Group: false, Title: "Dogs", Members: []string{"Cy"}},
		},
		{
			name:   "empty non-nil members clear them",
			update: state.Channel{ID: b.ID, Platform: "telegram", NativeID: "-100", Title: "Dogs", Members: []string{}},
			want:   state.Channel{ID: b.ID, Platform: "telegram", NativeID: "-100", Title: "Dogs"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.UpsertChannel(ctx, tt.update); err != nil {
				t.Fatalf("UpsertChannel: %v", err)
			}
			got, err := s.Channel(ctx, b.ID)
			if err != nil {
				t.Fatalf("Channel: %v", err)
			}
			if len(got.Members) == 0 {
				got.Members = nil
			}
			equal(t, "Channel", got, tt.want)
		})
	}
}
