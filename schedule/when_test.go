package schedule

import (
	"strings"
	"testing"
	"time"
)

func berlin(t testing.TB) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestResolve(t *testing.T) {
	loc := berlin(t)
	now := time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC) // 13:00 CET
	tests := []struct {
		name      string
		w         When
		wantFirst time.Time
		wantEvery string
		errPart   string
	}{
		{name: "after", w: When{After: "8s"}, wantFirst: now.Add(8 * time.Second)},
		{name: "after days", w: When{After: "2d"}, wantFirst: now.Add(48 * time.Hour)},
		{name: "local at", w: When{At: "2026-03-29 09:00"}, wantFirst: time.Date(2026, 3, 29, 7, 0, 0, 0, time.UTC)}, // CEST
		{name: "rfc3339", w: When{At: "2026-03-28T20:00:00Z"}, wantFirst: time.Date(2026, 3, 28, 20, 0, 0, 0, time.UTC)},
		{name: "hourly", w: When{After: "1h", Every: "1h"}, wantFirst: now.Add(time.Hour), wantEvery: "1h0m0s"},
		{name: "daily", w: When{After: "1h", Every: "Daily"}, wantFirst: now.Add(time.Hour), wantEvery: Daily},
		{name: "weekly", w: When{After: "1h", Every: "weekly"}, wantFirst: now.Add(time.Hour), wantEvery: Weekly},
		{name: "neither", w: When{}, errPart: `"at"`},
		{name: "both", w: When{At: "2026-03-29 09:00", After: "1h"}, errPart: "not both"},
		{name: "past", w: When{At: "2026-03-28 09:00"}, errPart: "in the past"},
		{name: "unparseable at", w: When{At: "tomorrow at 9"}, errPart: "YYYY-MM-DD HH:MM"},
		{name: "unparseable after", w: When{After: "soon"}, errPart: `"90s"`},
		{name: "negative after", w: When{After: "-5m"}, errPart: "positive"},
		{name: "too far", w: When{After: "400d"}, errPart: "more than a year"},
		{name: "every too short", w: When{After: "1h", Every: "30m"}, errPart: "shorter than an hour"},
		{name: "every unknown", w: When{After: "1h", Every: "monthly"}, errPart: `"daily"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Resolve(tt.w, now, loc)
			if tt.errPart != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errPart) {
					t.Fatalf("Resolve error = %v, want it to mention %q", err, tt.errPart)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if !p.First.Equal(tt.wantFirst) || p.Every != tt.wantEvery {
				t.Fatalf("Resolve = %v %q, want %v %q", p.First, p.Every, tt.wantFirst, tt.wantEvery)
			}
		})
	}
}

func TestOccurrenceDaily(t *testing.T) {
	loc := berlin(t)
	// 09:30 local every day across the spring change (29 March 2026) and
	// the autumn one (25 October 2026).
	for _, first := range []time.Time{
		time.Date(2026, 3, 27, 9, 30, 0, 0, loc),
		time.Date(2026, 10, 23, 9, 30, 0, 0, loc),
	} {
		for n := 0; n < 5; n++ {
			got, err := Occurrence(first, Daily, loc, n)
			if err != nil {
				t.Fatal(err)
			}
			l := got.In(loc)
			if l.Hour() != 9 || l.Minute() != 30 || l.Day() != first.Day()+n {
				t.Errorf("occurrence %d from %v = %v, want 09:30 local on day %d", n, first, l, first.Day()+n)
			}
		}
	}
	w, _ := Occurrence(time.Date(2026, 3, 26, 9, 30, 0, 0, loc), Weekly, loc, 1)
	if l := w.In(loc); l.Day() != 2 || l.Month() != time.April || l.Hour() != 9 {
		t.Errorf("weekly across the change = %v", l)
	}
}

func FuzzResolve(f *testing.F) {
	for _, s := range []string{"2026-03-29 09:00", "2026-03-29T09:00:00+02:00", "8s", "2d", "1h", "daily", "", "x"} {
		f.Add(s, s, s)
	}
	now := time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, at, after, every string) {
		p, err := Resolve(When{At: at, After: after, Every: every}, now, time.UTC)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if !p.First.After(now) || p.First.Sub(now) > MaxAhead {
			t.Fatalf("Resolve(%q, %q) = %v: outside (now, now+MaxAhead]", at, after, p.First)
		}
		if p.Every != "" {
			if _, err := Occurrence(p.First, p.Every, time.UTC, 3); err != nil {
				t.Fatalf("Occurrence of a resolved recurrence %q: %v", p.Every, err)
			}
		}
	})
}
