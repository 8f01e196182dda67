package backoff

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// top draws the top of every window, bottom the bottom.
func top(n time.Duration) time.Duration    { return n - 1 }
func bottom(n time.Duration) time.Duration { return 0 }

func TestDelay(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		name       string
		p          Policy
		n          int
		retryAfter time.Duration
		want       time.Duration
	}{
		{"no jitter first", Policy{Min: 500 * ms, Max: 30 * time.Second}, 1, 0, 500 * ms},
		{"no jitter doubles", Policy{Min: 500 * ms, Max: 30 * time.Second}, 6, 0, 16 * time.Second},
		{"no jitter capped", Policy{Min: 500 * ms, Max: 30 * time.Second}, 7, 0, 30 * time.Second},
		{"no overflow far out", Policy{Min: 500 * ms, Max: 30 * time.Second}, 1000, 0, 30 * time.Second},
		{"full top", Policy{Min: 100 * ms, Max: time.Second, Jitter: FullJitter, Rand: top}, 3, 0, 400 * ms},
		{"full bottom", Policy{Min: 100 * ms, Max: time.Second, Jitter: FullJitter, Rand: bottom}, 3, 0, 0},
		{"full capped", Policy{Min: 100 * ms, Max: time.Second, Jitter: FullJitter, Rand: top}, 50, 0, time.Second},
		{"equal top", Policy{Min: 100 * ms, Max: time.Second, Jitter: EqualJitter, Rand: top}, 2, 0, 200 * ms},
		{"equal bottom", Policy{Min: 100 * ms, Max: time.Second, Jitter: EqualJitter, Rand: bottom}, 2, 0, 100 * ms},
		{"retry-after wins over a shorter draw", Policy{Min: 100 * ms, Max: time.Second, Jitter: FullJitter, Rand: top}, 1, 700 * ms, 700 * ms},
		{"retry-after shorter than the draw", Policy{Min: 100 * ms, Max: time.Second, Jitter: FullJitter, Rand: top}, 4, 300 * ms, 800 * ms},
		{"retry-after capped", Policy{Min: 100 * ms, Max: time.Second, Jitter: FullJitter, Rand: top}, 1, time.Hour, time.Second},
		{"zero policy", Policy{}, 3, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Delay(tt.n, tt.retryAfter); got != tt.want {
				t.Errorf("Delay(%d, %v) = %v, want %v", tt.n, tt.retryAfter, got, tt.want)
			}
		})
	}
}

func TestDelayDefaultRandStaysInWindow(t *testing.T) {
	for _, j := range []Jitter{FullJitter, EqualJitter} {
		p := Policy{Min: 10 * time.Millisecond, Max: 80 * time.Millisecond, Jitter: j}
		for n := 1; n <= 6; n++ {
			w := p.Window(n)
			lo := time.Duration(0)
			if j == EqualJitter {
				lo = w / 2
			}
			for range 200 {
				if d := p.Delay(n, 0); d < lo || d > w {
					t.Fatalf("jitter %d: Delay(%d) = %v outside [%v, %v]", j, n, d, lo, w)
				}
			}
		}
	}
}

func TestSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if err := Sleep(t.Context(), time.Minute); err != nil {
			t.Fatalf("Sleep = %v, want nil", err)
		}
		if got := time.Since(start); got != time.Minute {
			t.Errorf("slept %v, want 1m", got)
		}
	})
}

func TestSleepReturnsWhenContextEnds(t *testing.T) {
	errNewMessage := errors.New("a new message arrived")
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(t.Context())
		start := time.Now()
		time.AfterFunc(time.Second, func() { cancel(errNewMessage) })
		err := Sleep(ctx, time.Hour)
		if !errors.Is(err, context.Canceled) || !errors.Is(err, errNewMessage) {
			t.Errorf("Sleep = %v, want context.Canceled and the cause", err)
		}
		if got := time.Since(start); got != time.Second {
			t.Errorf("returned after %v, want 1s (when the context ended)", got)
		}
	})
}

func TestSleepNothing(t *testing.T) {
	if err := Sleep(t.Context(), 0); err != nil {
		t.Errorf("Sleep(0) on a live context = %v, want nil", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := Sleep(ctx, -time.Second); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(-1s) on a done context = %v, want context.Canceled", err)
	}
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(1h) on a done context = %v, want context.Canceled", err)
	}
}
