package inspector

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/state"
)

// TestTimelineMarksEditsAndDeletions shows an edited message with its
// newest text marked edited, and a deleted one marked deleted, in the
// timeline of a forum topic's channel.
func TestTimelineMarksEditsAndDeletions(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := context.Background()
	topic := "-100/9"
	if err := f.store.UpsertChannel(ctx, state.Channel{ID: topic, Platform: "telegram", Group: true, Title: "Club / Games"}); err != nil {
		t.Fatal(err)
	}
	edited := f.message(t, topic, "Ann", "meet at 5", 500)
	gone := f.message(t, topic, "Bob", "oops wrong chat", 600)
	if _, _, _, err := f.store.EditMessage(ctx, state.Edit{ChannelID: topic, PlatformID: edited.PlatformID, Content: "meet at 6", Time: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.store.DeleteMessage(ctx, topic, gone.PlatformID, time.Now()); err != nil {
		t.Fatal(err)
	}
	_, body := f.get(t, channelURL(topic))
	var editedRow, goneRow string
	for _, r := range strings.Split(body, `<li class="item`) {
		switch {
		case strings.Contains(r, "meet at 6"):
			editedRow = r
		case strings.Contains(r, "oops wrong chat"):
			goneRow = r
		}
	}
	if !strings.Contains(editedRow, `>edited<`) || !strings.Contains(editedRow, "meet at 5") {
		t.Errorf("the edited row is not marked with its earlier text:\n%s", editedRow)
	}
	if !strings.Contains(goneRow, `>deleted<`) {
		t.Errorf("the deleted row is not marked deleted:\n%s", goneRow)
	}
	if !strings.Contains(channelURL(topic), url.PathEscape(topic)) {
		t.Errorf("channel URL %s", channelURL(topic))
	}
}
