package settings

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// DurationText writes d as it is written in the settings: 1m rather than
// 1m0s, 2h rather than 2h0m0s.
func DurationText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Gap is a duration setting of zero or more, such as a least time between
// two things.
func Gap[C any](target func(*C) *time.Duration) Parse[C] {
	return func(c *C, v Value) error {
		d, ok := ReadDuration(v)
		if !ok || d < 0 {
			return Want("want a Go duration such as 0s, 30s or 10m")
		}
		*target(c) = d
		return nil
	}
}

// Retention is a setting of how long something is kept (ParseRetention);
// forever is 0.
func Retention[C any](target func(*C) *time.Duration) Parse[C] {
	return Custom(target, func(s string) (time.Duration, error) {
		d, err := ParseRetention(s)
		if err != nil {
			return 0, Want("want a duration such as 30d, 12h or 90m, or forever")
		}
		return d, nil
	})
}

// ParseTokens reads a token count: a whole number, "none" or "0" for no
// budget.
func ParseTokens(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "none") {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, Want("want a whole number of tokens, or none")
	}
	return n, nil
}

// ParseRetention reads a retention period: a Go duration ("12h", "90m"),
// a number of days ("30d"), or "forever" (also "0", "off" or "never"),
// which is 0.
func ParseRetention(s string) (time.Duration, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	switch s {
	case "forever", "0", "off", "never":
		return 0, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("retention %q: want a positive number of days", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("retention %q: want a positive duration", s)
	}
	return d, nil
}
