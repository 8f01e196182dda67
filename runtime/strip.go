package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/airi-go/airi/scheduler/budget"
)

// Status is what a running bot says of itself beside its readiness
// checks, for the operator's status strip: where its prompts come from
// and, when a budget is set, the tokens used of it today.
func (b *Bot) Status(ctx context.Context) []Check {
	out := []Check{b.promptsCheck()}
	if b.budget != nil {
		c, ok := budgetCheck(ctx, b.budget, b.now())
		if !ok {
			c = Check{Name: "budget", OK: true, Detail: "per channel: the channels page shows each one's use"}
		}
		out = append(out, c)
	}
	return out
}

// promptsCheck says where the templates in use come from, and whether
// the last reload of PROMPTS_DIR failed.
func (b *Bot) promptsCheck() Check {
	if b.prompts == nil {
		return Check{Name: "prompts", Detail: "none loaded"}
	}
	detail := "embedded"
	if dir := b.prompts.Dir(); dir != "" {
		detail = "PROMPTS_DIR " + dir
	}
	if err := b.prompts.Err(); err != nil {
		return Check{Name: "prompts", Detail: fmt.Sprintf("%s: the last edit does not load (%v); the previous templates stay in use", detail, err)}
	}
	return Check{Name: "prompts", OK: true, Detail: detail}
}

// budgetCheck reports the daily budget shared by every channel; it fails
// from the level where groups fall back to being woken only when
// addressed.
func budgetCheck(ctx context.Context, t *budget.Tracker, now time.Time) (Check, bool) {
	use, ok := t.Use(ctx, now, nil)[budget.Global]
	if !ok {
		return Check{}, false
	}
	pct := use[0] * 100 / max(use[1], 1)
	return Check{Name: "budget", OK: use[0]*5 < use[1]*4, Detail: fmt.Sprintf("%d of %d tokens today (%d%%)", use[0], use[1], pct)}, true
}

// Alert is the banner the operator's pages show while every model call
// fails: since when, and the last error; "" while calls succeed.
func (b *Bot) Alert() string {
	since, last := b.sched.ModelFailing()
	if since.IsZero() {
		return ""
	}
	return fmt.Sprintf("The model is failing: every call since %s has failed (%s ago). Last error: %s",
		since.UTC().Format("15:04:05 UTC"), b.now().Sub(since).Round(time.Second), last)
}
