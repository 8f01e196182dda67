package parse

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// intLiteral reads a JSON number as an integer in the given unit,
// exactly: 3e4 is 30000 and 1.5 seconds is 1500 milliseconds. A fraction
// left over is rounded when round is set or the unit is not 1, and refused
// otherwise.
func intLiteral(s string, unit int64, round bool) (int64, bool) {
	if s == "" || !isNumber(s) {
		return 0, false
	}
	if !strings.ContainsAny(s, ".eE") {
		n, err := strconv.ParseInt(strings.TrimPrefix(s, "+"), 10, 64)
		if err != nil {
			return 0, false
		}
		if unit != 1 {
			if n > math.MaxInt64/unit || n < math.MinInt64/unit {
				return 0, false
			}
			n *= unit
		}
		return n, true
	}
	if n, exact, ok := fixedPoint(s, unit); ok && (exact || round || unit != 1) {
		return n, true
	} else if ok {
		return 0, false
	}
	f, _, err := big.ParseFloat(s, 10, 128, big.ToNearestEven)
	if err != nil {
		return 0, false
	}
	f.Mul(f, new(big.Float).SetInt64(unit))
	if !f.IsInt() {
		if unit == 1 && !round {
			return 0, false
		}
		// A fraction of a millisecond: round to the nearest.
		f.Add(f, big.NewFloat(0.5))
	}
	n, acc := f.Int64()
	if acc != big.Exact && f.IsInt() {
		return 0, false
	}
	return n, true
}

// fixedPoint computes s × unit for a decimal number s with few digits
// using integer arithmetic, rounding half up; exact reports that no
// fraction was left. ok is false when the number needs big arithmetic.
func fixedPoint(s string, unit int64) (n int64, exact, ok bool) {
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var mant int64
	digits, scale := 0, 0
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		mant = mant*10 + int64(s[i]-'0')
		if mant != 0 {
			digits++
		}
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			mant = mant*10 + int64(s[i]-'0')
			scale++
			if mant != 0 {
				digits++
			}
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 18 || e < -18 {
			return 0, false, false
		}
		scale -= e
	}
	if digits > 15 || scale > 18 || scale < -18 {
		return 0, false, false
	}
	if unit <= 0 || mant > math.MaxInt64/unit {
		return 0, false, false
	}
	mant *= unit
	for ; scale < 0; scale++ {
		if mant > math.MaxInt64/10 {
			return 0, false, false
		}
		mant *= 10
	}
	exact = true
	if scale > 0 {
		div := int64(1)
		for ; scale > 0; scale-- {
			div *= 10
		}
		q, r := mant/div, mant%div
		exact = r == 0
		if 2*r >= div {
			q++
		}
		mant = q
	}
	if neg {
		mant = -mant
	}
	return mant, exact, true
}

// isNumber reports whether s is a decimal number: an optional sign,
// digits with an optional fraction, and an optional exponent.
func isNumber(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// durationUnit maps a unit word (in several languages) to milliseconds.
func durationUnit(word string) (int64, bool) {
	switch word {
	case "ms", "msec", "msecs", "millisecond", "milliseconds", "毫秒", "ミリ秒", "мс":
		return 1, true
	case "s", "sec", "secs", "second", "seconds", "秒", "秒钟", "秒鐘", "с", "сек", "секунд", "секунды", "секунда", "секунду":
		return 1000, true
	case "m", "min", "mins", "minute", "minutes", "分", "分钟", "分鐘", "分間", "мин", "минут", "минуты", "минута", "минуту":
		return 60000, true
	case "h", "hr", "hrs", "hour", "hours", "小时", "小時", "時間", "ч", "час", "часа", "часов":
		return 3600000, true
	}
	return 0, false
}

// maxDurationMS is the longest duration in milliseconds that a
// time.Duration can hold (about 292 years). Longer durations are capped to
// it, so that a handler converting milliseconds to a time.Duration never
// wraps around to zero or a negative sleep.
const maxDurationMS = int64(math.MaxInt64 / time.Millisecond)

// durationMS reads a duration value as milliseconds: a number in unit, or
// a text such as "30s" (see parseDurationMS). A fraction of a millisecond
// is rounded. Magnitudes beyond maxDurationMS saturate to it (capped
// reports a positive one) instead of failing or wrapping.
func durationMS(v jval, unit int64) (n int64, capped, ok bool) {
	switch v.kind {
	case jNum:
		n, ok = intLiteral(v.str, unit, true)
		if !ok {
			n, ok = saturatedLiteral(v.str, unit)
		}
	case jStr:
		n, ok = parseDurationMS(v.str, unit)
	}
	if !ok {
		return 0, false, false
	}
	switch {
	case n >= maxDurationMS:
		return maxDurationMS, true, true
	case n < -maxDurationMS:
		return -maxDurationMS, false, true
	}
	return n, false, true
}

// saturatedLiteral reads a decimal number s × unit of any magnitude,
// rounded, and clamped to ±maxDurationMS.
func saturatedLiteral(s string, unit int64) (int64, bool) {
	if !isNumber(s) {
		return 0, false
	}
	f, _, err := big.ParseFloat(s, 10, 128, big.ToNearestEven)
	if err != nil {
		// An exponent beyond what big.Float holds: the number is huge
		// (or vanishingly small, with a negative exponent).
		mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
		switch {
		case strings.HasPrefix(exp, "-") || strings.Trim(mant, "+-0.") == "":
			return 0, true
		case strings.HasPrefix(mant, "-"):
			return -maxDurationMS, true
		}
		return maxDurationMS, true
	}
	f.Mul(f, new(big.Float).SetInt64(unit))
	limit := new(big.Float).SetInt64(maxDurationMS)
	switch {
	case f.Cmp(limit) > 0:
		return maxDurationMS, true
	case f.Cmp(new(big.Float).Neg(limit)) < 0:
		return -maxDurationMS, true
	}
	if f.Sign() >= 0 {
		f.Add(f, big.NewFloat(0.5))
	} else {
		f.Sub(f, big.NewFloat(0.5))
	}
	n, _ := f.Int64()
	return n, true
}

// parseDurationMS reads a duration written as text: "30000", "3e4",
// "30s", "2m", "1m30s", "1.5 seconds", "30秒" or "2 минуты". A bare
// number is in unit (milliseconds unless the key said otherwise).
func parseDurationMS(s string, unit int64) (int64, bool) {
	s = strings.TrimSpace(strings.ToLower(s))
	if s == "" {
		return 0, false
	}
	if n, ok := intLiteral(s, unit, false); ok {
		return n, true
	}
	if isNumber(s) {
		if n, ok := intLiteral(s, unit, true); ok {
			return n, true
		}
		return saturatedLiteral(s, unit)
	}
	s = strings.TrimPrefix(s, "pt") // ISO 8601: PT30S, PT2M
	var total int64
	i := 0
	pairs := 0
	for i < len(s) {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) {
			break
		}
		j := i
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
			j++
		}
		if j == i {
			return 0, false
		}
		numText := s[i:j]
		for j < len(s) && s[j] == ' ' {
			j++
		}
		k := j
		for k < len(s) && !(s[k] >= '0' && s[k] <= '9') && s[k] != ' ' {
			k++
		}
		word := s[j:k]
		mult, ok := durationUnit(word)
		if !ok {
			return 0, false
		}
		if !isNumber(numText) {
			return 0, false
		}
		ms, _, ok := fixedPoint(numText, mult)
		if !ok {
			if ms, ok = saturatedLiteral(numText, mult); !ok {
				return 0, false
			}
		}
		// Each part and the total stay within maxDurationMS, far from
		// overflow.
		total = min(total+min(ms, maxDurationMS), maxDurationMS)
		pairs++
		i = k
	}
	return total, pairs > 0
}
