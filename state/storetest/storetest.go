// Package storetest is the test suite every state.Store engine runs, so
// that all engines honour the documented semantics of the interface the
// same way:
//
//	func TestStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) state.Store { return openFresh(t) })
//	}
//
// Times used by the suite are whole milliseconds in UTC, so engines that
// keep microseconds pass; times are compared as instants.
package storetest

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/airi-go/airi/state"
)

// at returns the suite's reference instant plus n seconds.
func at(n int) time.Time {
	return time.Date(2026, 3, 14, 15, 9, 26, 535_000_000, time.UTC).Add(time.Duration(n) * time.Second)
}

// Run runs the whole suite against one engine. open must return a new,
// empty store for each subtest; Run closes it when the subtest ends.
func Run(t *testing.T, open func(t *testing.T) state.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s state.Store)
	}{
		{"Channels", testChannels},
		{"IngestNew", testIngestNew},
		{"IngestDuplicate", testIngestDuplicate},
		{"IngestSelf", testIngestSelf},
		{"IngestInvalid", testIngestInvalid},
		{"IngestConcurrent", testIngestConcurrent},
		{"Unread", testUnread},
		{"CountUnreadAfter", testCountUnreadAfter},
		{"UnreadCounts", testUnreadCounts},
		{"MarkRead", testMarkRead},
		{"History", testHistory},
		{"RecentOwn", testRecentOwn},
		{"LastMessageID", testLastMessageID},
		{"Actions", testActions},
		{"ClearActions", testClearActions},
		{"TrimActions", testTrimActions},
		{"Outbox", testOutbox},
		{"Reactions", testReactions},
		{"Ticks", testTicks},
		{"Events", testEvents},
		{"Timeline", testTimeline},
		{"TimelineLarge", testTimelineLarge},
		{"TickNeighbours", testTickNeighbours},
		{"ChannelActivity", testChannelActivity},
		{"Decisions", testDecisions},
		{"SkippedWakes", testSkippedWakes},
		{"IngestIn", testIngestIn},
		{"RecordTick", testRecordTick},
		{"RecordSent", testRecordSent},
		{"RefusedBytes", testRefusedBytes},
		{"UserIDs", testUserIDs},
		{"Cursor", testCursor},
		{"TokenUsage", testTokenUsage},
		{"TokenUsageConcurrent", testTokenUsageConcurrent},
		{"Updates", testUpdates},
		{"Notes", testNotes},
		{"NoteInvalid", testNoteInvalid},
		{"NoteEviction", testNoteEviction},
		{"ForgetUser", testForgetUser},
		{"CancelledContext", testCancelledContext},
		{"ChannelControl", testChannelControl},
		{"ResetAndForget", testResetAndForget},
		{"Retention", testRetention},
		{"EditMessage", testEditMessage},
		{"DeleteMessage", testDeleteMessage},
		{"Reminders", testReminders},
		{"ReminderLimits", testReminderLimits},
		{"ReminderClaim", testReminderClaim},
		{"ReminderSends", testReminderSends},
		{"ReminderRetention", testReminderRetention},
		{"Media", testMedia},
		{"Seeded", func(t *testing.T, s state.Store) { Seed(t, s).Check(t, s) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
			})
			tt.fn(t, s)
		})
	}
}

func equal(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

func testCancelledContext(t *testing.T, s state.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := s.Ingest(ctx, msg("c1", "p1", 1)); err == nil {
		t.Error("Ingest with a cancelled context: no error")
	}
	if _, err := s.AppendAction(ctx, state.ActionRecord{ChannelID: "c1", Name: "x"}); err == nil {
		t.Error("AppendAction with a cancelled context: no error")
	}
	bg := context.Background()
	if u, err := s.Unread(bg, "c1", 0); err != nil || len(u) != 0 {
		t.Errorf("a cancelled Ingest stored something: %v, %v", u, err)
	}
	// The store stays usable.
	ingest(t, s, msg("c1", "p1", 1))
}
