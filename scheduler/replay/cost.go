package replay

import (
	"fmt"
	"io"
	"math"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/state"
)

// TokenCounter counts the prompt tokens of a request (internal/tokens'
// o200k Counter).
type TokenCounter interface {
	Request(msgs []state.ChatMessage) int
}

// TickCost compares the request a tick recorded with the one the prompts
// render now.
type TickCost struct {
	// Tick numbers the tick in the session, from 1.
	Tick int
	// Recorded and Rendered are the requests' prompt tokens.
	Recorded, Rendered int
	// RecordedStable and RenderedStable are the tokens of each request
	// identical to the start of the previous request of the session: what
	// a provider's prefix cache can reuse. Zero for the first tick.
	RecordedStable, RenderedStable int
	// FirstDiff names where the rendered request first differs from the
	// recorded one: a prompt section ("persona", ...), "state message", a
	// history message, or "" when the two are equal.
	FirstDiff string
}

// Changed reports whether the tick renders a different request now.
func (c TickCost) Changed() bool { return c.FirstDiff != "" }

// Cost is what a prompt edit costs over one session's ticks.
type Cost struct {
	Ticks []TickCost
}

// CostOf compares, tick by tick, the tokens of the recorded requests of s
// with those a replay with Options.Prompts rendered.
func CostOf(s *Session, rep *Report, count TokenCounter) *Cost {
	c := &Cost{}
	var prevRec, prevNow []state.ChatMessage
	for i, t := range s.Ticks() {
		n := i + 1
		now, ok := rep.Rendered[n]
		if !ok {
			continue
		}
		tc := TickCost{Tick: n, Recorded: count.Request(t.Request), Rendered: count.Request(now)}
		if prevRec != nil {
			tc.RecordedStable = stable(prevRec, t.Request, tc.Recorded)
			tc.RenderedStable = stable(prevNow, now, tc.Rendered)
		}
		tc.FirstDiff = firstDiff(t.Request, now, rep.Sections[n])
		prevRec, prevNow = t.Request, now
		c.Ticks = append(c.Ticks, tc)
	}
	return c
}

// stable is the share of cur identical to the start of prev, in tokens.
func stable(prev, cur []state.ChatMessage, tokens int) int {
	return int(math.Round(planner.PrefixShare(prev, cur) * float64(tokens)))
}

// firstDiff locates the first byte where now differs from rec and names
// the section of now that holds it.
func firstDiff(rec, now []state.ChatMessage, sections []state.Section) string {
	m := 0
	for m < len(rec) && m < len(now) && rec[m].Equal(now[m]) {
		m++
	}
	switch {
	case m == len(rec) && m == len(now):
		return ""
	case m >= len(now):
		return fmt.Sprintf("messages after message %d (the recorded request had %d, now %d)", m, len(rec), len(now))
	}
	p := 0
	if m < len(rec) {
		a, b := rec[m].Content, now[m].Content
		for p < len(a) && p < len(b) && a[p] == b[p] {
			p++
		}
		if rec[m].Role != now[m].Role {
			p = 0
		}
	}
	name := ""
	next := math.MaxInt
	for _, sec := range sections {
		if sec.Message != m {
			continue
		}
		if sec.Start <= p && p < sec.End {
			name = sec.Name
			break
		}
		// A difference between two sections belongs to the one after it.
		if sec.Start >= p && sec.Start < next {
			name, next = sec.Name, sec.Start
		}
	}
	switch {
	case name == prompts.StateSection:
		return "state message"
	case name != "":
		return name
	case m == len(now)-1 && now[m].Role == planner.RoleUser:
		return "state message"
	case m == 0:
		return "system message"
	}
	return fmt.Sprintf("history message %d", m)
}

// Totals sums the ticks: requests, their tokens recorded and now, and the
// cache-stable prefix tokens recorded and now.
func (c *Cost) Totals() (calls, recorded, rendered, recStable, nowStable int) {
	for _, t := range c.Ticks {
		calls++
		recorded += t.Recorded
		rendered += t.Rendered
		recStable += t.RecordedStable
		nowStable += t.RenderedStable
	}
	return calls, recorded, rendered, recStable, nowStable
}

// Summary is the line "mean tokens per call +X%, cache-stable prefix −Y%":
// how the mean prompt tokens per call and the mean tokens a prefix cache
// can reuse change from the recorded requests to those rendered now.
func (c *Cost) Summary() string {
	calls, rec, now, recStable, nowStable := c.Totals()
	if calls == 0 {
		return "no tick replayed: nothing to compare"
	}
	return fmt.Sprintf("mean tokens per call %s (%d → %d), cache-stable prefix %s (%d → %d tokens)",
		change(rec, now), rec/calls, now/calls, change(recStable, nowStable), recStable/calls, nowStable/calls)
}

// change writes the relative change from a to b with its sign.
func change(a, b int) string {
	if a == 0 {
		if b == 0 {
			return "+0.0%"
		}
		return "+∞%"
	}
	x := 100 * float64(b-a) / float64(a)
	if x < 0 {
		return fmt.Sprintf("−%.1f%%", -x)
	}
	return fmt.Sprintf("+%.1f%%", x)
}

// Write prints the cost for people: a line per tick with its token delta
// and, for a changed request, where it first differs; the total; and the
// summary line.
func (c *Cost) Write(w io.Writer, name string) error {
	if _, err := fmt.Fprintf(w, "cost of the prompt change in %s (o200k tokens):\n", name); err != nil {
		return err
	}
	for _, t := range c.Ticks {
		line := fmt.Sprintf("  tick %d: %d → %d (%+d)", t.Tick, t.Recorded, t.Rendered, t.Rendered-t.Recorded)
		if t.Changed() {
			line += ", first difference: " + t.FirstDiff
		} else {
			line += ", unchanged"
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	calls, rec, now, _, _ := c.Totals()
	if _, err := fmt.Fprintf(w, "  total over %d calls: %d → %d (%+d)\n  %s\n", calls, rec, now, now-rec, c.Summary()); err != nil {
		return err
	}
	return nil
}
