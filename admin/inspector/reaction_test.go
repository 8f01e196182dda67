package inspector

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/state"
)

// TestTimelineCountsReactions: a row of the bot's message counts the
// reactions it carries now, per emoji (a removal takes one off), on the
// timeline, its live rows and search; other rows show none.
func TestTimelineCountsReactions(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := context.Background()
	own, _, err := f.store.Ingest(ctx, state.Message{ChannelID: "-100", PlatformID: "812", SenderName: "Juni", Self: true,
		Content: "the pier at half past one", Time: base.Add(700 * time.Millisecond), Read: true})
	if err != nil {
		t.Fatal(err)
	}
	f.message(t, "-100", "Bob", "ok, the pier it is", 800)
	for i, r := range []state.Reaction{
		{SenderID: "1", Emoji: "🔥"},
		{SenderID: "2", Emoji: "🔥"},
		{SenderID: "3", Emoji: "👍"},
		{SenderID: "3", Emoji: "👍", Removed: true},
		{SenderID: "4", Emoji: markup},
	} {
		r.ChannelID, r.MessageID, r.SenderName, r.Time = "-100", "812", "p"+r.SenderID, base.Add(time.Duration(900+i)*time.Millisecond)
		if ok, err := f.store.AddReaction(ctx, r); err != nil || !ok {
			t.Fatalf("AddReaction = %v, %v", ok, err)
		}
	}
	pages := []string{
		"/channels/-100",
		fmt.Sprintf("/live?channel=-100&m=%d&t=0", own.ID-1),
		"/search?q=pier",
	}
	for _, path := range pages {
		t.Run(path, func(t *testing.T) {
			resp, body := f.get(t, path)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d:\n%s", resp.StatusCode, body)
			}
			var ownRow, otherRow string
			for _, r := range strings.Split(body, `<li class="item`) {
				switch {
				case strings.Contains(r, "the pier at half past one"):
					ownRow = r
				case strings.Contains(r, "ok, the pier it is"):
					otherRow = r
				}
			}
			if want := "🔥 2 · &lt;img src=x onerror=alert(1)&gt; 1</span>"; !strings.Contains(ownRow, want) {
				t.Errorf("the bot's row lacks the counts %q:\n%s", want, ownRow)
			}
			if strings.Contains(ownRow, "👍") || strings.Contains(ownRow, markup) {
				t.Errorf("the bot's row counts a removed reaction or shows markup:\n%s", ownRow)
			}
			if otherRow == "" || strings.Contains(otherRow, `class="tag react"`) {
				t.Errorf("another's row shows reactions (or is missing):\n%s", otherRow)
			}
		})
	}
}
