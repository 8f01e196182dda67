package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/state"
)

// TestTimelinePlan checks that a timeline page is an index range read
// newest first and cut by LIMIT: SQLite neither reads the whole channel
// nor sorts it, however many ticks and messages it holds.
func TestTimelinePlan(t *testing.T) {
	s := openAt(t, filepath.Join(t.TempDir(), "airi.db"))
	cursor := state.TimelinePos{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Tick: true, ID: 9000}
	tests := []struct {
		name      string
		q         state.TimelineQuery
		msgIndex  string
		tickIndex string
	}{
		{"newest page", state.TimelineQuery{ChannelID: "c", Limit: 50}, "messages_timeline", "ticks_timeline"},
		{"older page", state.TimelineQuery{ChannelID: "c", Limit: 50, Before: cursor}, "messages_timeline", "ticks_timeline"},
		{"outcome in a channel", state.TimelineQuery{ChannelID: "c", Limit: 50, Outcome: state.OutcomeParseError, Before: cursor}, "", "ticks_channel_outcome"},
		{"outcome everywhere", state.TimelineQuery{Limit: 50, Outcome: state.OutcomeSent}, "", "ticks_outcome"},
		{"text in a channel", state.TimelineQuery{ChannelID: "c", Limit: 50, Text: "hi"}, "messages_timeline", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgSQL, msgArgs, tickSQL, tickArgs := timelineSQL(tt.q)
			for _, c := range []struct {
				sql, index string
				args       []any
			}{{msgSQL, tt.msgIndex, msgArgs}, {tickSQL, tt.tickIndex, tickArgs}} {
				if (c.sql == "") != (c.index == "") {
					t.Fatalf("statement %q, want one using %q", c.sql, c.index)
				}
				if c.sql == "" {
					continue
				}
				if !strings.HasSuffix(c.sql, "LIMIT ?") || c.args[len(c.args)-1] != tt.q.Limit {
					t.Errorf("statement not cut by the page limit: %s %v", c.sql, c.args)
				}
				plan := explain(t, s, c.sql, c.args)
				if !strings.Contains(plan, "USING INDEX "+c.index) && !strings.Contains(plan, "USING COVERING INDEX "+c.index) {
					t.Errorf("plan does not use %s:\n%s", c.index, plan)
				}
				if strings.Contains(plan, "TEMP B-TREE") {
					t.Errorf("plan sorts the rows it reads:\n%s", plan)
				}
			}
		})
	}
}

// openAt opens the store at path for a test, closed when it ends.
func openAt(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func explain(t *testing.T, s *Store, query string, args []any) string {
	t.Helper()
	rows, err := s.reader.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		b.WriteString(detail + "\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
