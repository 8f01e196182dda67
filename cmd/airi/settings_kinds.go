package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/airi-go/airi/internal/settings"
)

// value is a setting's value as given, from the environment or the file.
type value = settings.Value

// The kinds of settings of the table, for the fields of config; the
// machinery is package settings.

func text(target func(*config) *string, check func(string) error) settings.Parse[config] {
	return settings.Text(target, check)
}

func oneOf(target func(*config) *string, choices ...string) settings.Parse[config] {
	return settings.OneOf(target, choices...)
}

func absoluteURL(target func(*config) *string, example string) settings.Parse[config] {
	return settings.AbsoluteURL(target, example)
}

func whole(target func(*config) *int, minimum int) settings.Parse[config] {
	return settings.Whole(target, minimum)
}

func boolean(target func(*config) *bool) settings.Parse[config] { return settings.Boolean(target) }

func duration(target func(*config) *time.Duration, allowZero bool) settings.Parse[config] {
	return settings.Duration(target, allowZero)
}

func list(target func(*config) *[]string) settings.Parse[config] { return settings.List(target) }

func jsonObject(target func(*config) *map[string]any) settings.Parse[config] {
	return settings.JSONObject(target)
}

func custom[T any](target func(*config) *T, read func(string) (T, error)) settings.Parse[config] {
	return settings.Custom(target, read)
}

func durationText(d time.Duration) string { return settings.DurationText(d) }

func gap(target func(*config) *time.Duration) settings.Parse[config] { return settings.Gap(target) }

func retention(target func(*config) *time.Duration) settings.Parse[config] {
	return settings.Retention(target)
}

func parseTokens(s string) (int64, error) { return settings.ParseTokens(s) }

// parseBytes reads a positive byte count.
func parseBytes(s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 {
		return 0, want("want a number of bytes, such as 10485760")
	}
	return n, nil
}

// want says what a setting wants (a *settings.WantError).
func want(format string, args ...any) error { return settings.Want(format, args...) }

// loadZone reads a time zone name.
func loadZone(s string) (*time.Location, error) {
	loc, err := time.LoadLocation(strings.TrimSpace(s))
	if err != nil {
		return nil, want("want a time zone name such as UTC or Europe/Berlin")
	}
	return loc, nil
}
