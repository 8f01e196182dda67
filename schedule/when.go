// Package schedule is the reminder domain: reading the times a chat asks
// for (at, after, every), the chat's time zone, the next due time of a
// recurring reminder across daylight-saving changes, the actions that set,
// list and cancel reminders, and the due loop that delivers them through
// the outbox.
//
// A reminder is delivered at most once: its occurrence and its outbox
// entry are claimed in one transaction of the store (see
// state.Reminders.ClaimReminder), and an outbox entry whose send outcome
// a crash left unknown is reported at start, never repeated. It is
// delivered at least once when the bot runs past its due time: the due
// loop finds every pending reminder whose time has come, also those that
// fell due while the bot was down.
package schedule

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Recurrences besides a duration.
const (
	Daily  = "daily"
	Weekly = "weekly"
)

// MinEvery is the shortest recurrence a chat may ask for.
const MinEvery = time.Hour

// MaxAhead is how far ahead a reminder may be set.
const MaxAhead = 366 * 24 * time.Hour

// LocalLayout is the local form of `at`, read in the chat's time zone.
const LocalLayout = "2006-01-02 15:04"

// When is what a chat asks for: exactly one of At and After, and
// optionally Every.
type When struct {
	At, After, Every string
}

// Plan is a When resolved against a clock and a time zone.
type Plan struct {
	// First is the first due time.
	First time.Time
	// Every is "" (once), a duration in Go's form ("1h0m0s"), Daily or Weekly.
	Every string
}

// Resolve reads w at now in loc. Its errors are written for the model:
// what was wrong and what would be right.
func Resolve(w When, now time.Time, loc *time.Location) (Plan, error) {
	if loc == nil {
		loc = time.UTC
	}
	at, after := strings.TrimSpace(w.At), strings.TrimSpace(w.After)
	var p Plan
	switch {
	case at == "" && after == "":
		return p, errors.New(`give the time as "at" (RFC 3339, or "YYYY-MM-DD HH:MM" in the chat's time zone) or "after" (a duration such as "90s" or "2h")`)
	case at != "" && after != "":
		return p, errors.New(`give either "at" or "after", not both`)
	case at != "":
		t, err := parseAt(at, loc)
		if err != nil {
			return p, err
		}
		p.First = t
	default:
		d, err := parseDuration(after)
		if err != nil {
			return p, fmt.Errorf(`"after" %q: %v`, after, err)
		}
		if d <= 0 {
			return p, fmt.Errorf(`"after" %q: want a positive duration such as "90s" or "2h"`, after)
		}
		p.First = now.Add(d)
	}
	if !p.First.After(now) {
		return p, fmt.Errorf("%s is in the past (it is now %s)", Format(p.First, loc), Format(now, loc))
	}
	if p.First.Sub(now) > MaxAhead {
		return p, fmt.Errorf("%s is more than a year ahead; reminders can be set up to a year from now", Format(p.First, loc))
	}
	every, err := parseEvery(w.Every)
	if err != nil {
		return p, err
	}
	p.Every = every
	return p, nil
}

func parseAt(s string, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{LocalLayout, "2006-01-02T15:04", "2006-01-02 15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf(`"at" %q: want RFC 3339 (2026-03-01T09:00:00+01:00) or "YYYY-MM-DD HH:MM" in the chat's time zone (%s)`, s, loc)
}

// parseDuration reads a Go duration, and whole days as "3d".
func parseDuration(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil {
			return 0, errors.New(`want a duration such as "90s", "2h" or "3d"`)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, errors.New(`want a duration such as "90s", "2h" or "3d"`)
	}
	return d, nil
}

func parseEvery(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "":
		return "", nil
	case Daily:
		return Daily, nil
	case Weekly:
		return Weekly, nil
	}
	d, err := parseDuration(s)
	if err != nil {
		return "", fmt.Errorf(`"every" %q: want "daily", "weekly" or a duration of at least 1h such as "6h"`, s)
	}
	if d < MinEvery {
		return "", fmt.Errorf(`"every" %q is shorter than an hour: repeat at most hourly ("1h"), or "daily" / "weekly"`, s)
	}
	return d.String(), nil
}

// Occurrence is the due time of occurrence n (0 is first) of a reminder
// that repeats every (as Plan.Every holds it) in loc. A duration repeats
// on the absolute clock; daily and weekly keep the local time of day of
// first across daylight-saving changes (a time that does not exist on a
// day is moved as time.Date moves it). Computing each occurrence from the
// first, never from the previous one, keeps a reminder from drifting.
func Occurrence(first time.Time, every string, loc *time.Location, n int) (time.Time, error) {
	if n == 0 || every == "" {
		return first, nil
	}
	if loc == nil {
		loc = time.UTC
	}
	days := 0
	switch every {
	case Daily:
		days = 1
	case Weekly:
		days = 7
	default:
		d, err := time.ParseDuration(every)
		if err != nil || d <= 0 {
			return time.Time{}, fmt.Errorf("reminder recurrence %q: not a duration, daily or weekly", every)
		}
		return first.Add(time.Duration(n) * d), nil
	}
	l := first.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day()+n*days, l.Hour(), l.Minute(), l.Second(), l.Nanosecond(), loc), nil
}

// Format writes t in loc as a chat reads it, with the zone's abbreviation.
func Format(t time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format("Mon 2 Jan 2006 15:04 MST")
}

// Zones are the time zones of the chats: Default, unless a channel has its own.
type Zones struct {
	Default  *time.Location
	Channels map[string]*time.Location
}

// For returns the time zone of a channel.
func (z Zones) For(channelID string) *time.Location {
	if loc, ok := z.Channels[channelID]; ok && loc != nil {
		return loc
	}
	if z.Default != nil {
		return z.Default
	}
	return time.UTC
}
