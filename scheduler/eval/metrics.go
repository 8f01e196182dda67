package eval

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/internal/tokens"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/state"
)

// Parse outcomes of one answer.
const (
	// ParseStrict: the whole answer (after a leading think block) is one
	// JSON object, and the parser accepted it without a note.
	ParseStrict = "strict"
	// ParseRepaired: the parser found an action, but only by repairing the
	// answer (fences, prose, broken JSON, a tool-call shape) or by
	// dropping or cutting something (its notes say what).
	ParseRepaired = "repaired"
	// ParseRefused: the parser found no action it could run.
	ParseRefused = "refused"
)

// ParseOutcome classifies the answer of a tick; "" for a failed call.
func ParseOutcome(t state.Tick) string {
	switch {
	case t.ModelError != "":
		return ""
	case t.ParseError != "":
		return ParseRefused
	case len(t.Notes) > 0:
		return ParseRepaired
	}
	raw := strings.TrimSpace(t.Raw)
	if strings.HasPrefix(raw, "<think>") {
		if _, rest, ok := strings.Cut(raw, "</think>"); ok {
			raw = strings.TrimSpace(rest)
		}
	}
	if strings.HasPrefix(raw, "{") && json.Valid([]byte(raw)) {
		return ParseStrict
	}
	return ParseRepaired
}

// Prices are money per million tokens; nil fields are unknown.
type Prices struct {
	In, Out, Cached *float64
}

// Counts are the sums one run (or several sessions of one run) yields;
// metrics are ratios of them.
type Counts struct {
	Messages int
	// Calls counts model calls; Failed those that got no answer.
	Calls, Failed             int
	Strict, Repaired, Refused int
	// TP, FP, FN, TN count messages labelled yes/no by whether the wake
	// that showed them sent something.
	TP, FP, FN, TN                 int
	ContainsHit, ContainsTotal     int
	NotContainsHit, NotContainsAll int
	ActionHit, ActionTotal         int
	// PromptTokens and CompletionTokens sum over answered calls, from the
	// provider's usage or, where it reported none, the o200k count.
	PromptTokens, CompletionTokens int
	// Estimated counts calls whose tokens were counted here.
	Estimated int
	// CachedTokens sums the provider's cached prompt tokens; CachedCalls
	// counts the calls that reported any.
	CachedTokens, CachedCalls int
	// PrefixSum adds the prefix share of every call that had a previous
	// request in its channel; PrefixCalls counts them.
	PrefixSum   float64
	PrefixCalls int
	LatenciesMS []int64
}

// Add adds o to c.
func (c *Counts) Add(o Counts) {
	c.Messages += o.Messages
	c.Calls += o.Calls
	c.Failed += o.Failed
	c.Strict += o.Strict
	c.Repaired += o.Repaired
	c.Refused += o.Refused
	c.TP += o.TP
	c.FP += o.FP
	c.FN += o.FN
	c.TN += o.TN
	c.ContainsHit += o.ContainsHit
	c.ContainsTotal += o.ContainsTotal
	c.NotContainsHit += o.NotContainsHit
	c.NotContainsAll += o.NotContainsAll
	c.ActionHit += o.ActionHit
	c.ActionTotal += o.ActionTotal
	c.PromptTokens += o.PromptTokens
	c.CompletionTokens += o.CompletionTokens
	c.Estimated += o.Estimated
	c.CachedTokens += o.CachedTokens
	c.CachedCalls += o.CachedCalls
	c.PrefixSum += o.PrefixSum
	c.PrefixCalls += o.PrefixCalls
	c.LatenciesMS = append(c.LatenciesMS, o.LatenciesMS...)
}

// Count scores one run. tok counts tokens the provider did not report.
func Count(run *Run, tok *tokens.Counter) Counts {
	c := Counts{Messages: len(run.Events)}
	prev := map[string][]state.ChatMessage{}
	expected := map[int]string{}
	n := 0
	for _, it := range run.Session.Items {
		if it.Tick != nil {
			n++
			if it.Tick.Expect != nil {
				expected[n] = it.Tick.Expect.Action
			}
		}
	}
	got := map[int]string{}
	for _, t := range run.Ticks {
		c.Calls++
		if p, ok := prev[t.ChannelID]; ok && len(t.Request) > 0 {
			c.PrefixSum += planner.PrefixShare(p, t.Request)
			c.PrefixCalls++
		}
		if len(t.Request) > 0 {
			prev[t.ChannelID] = t.Request
		}
		switch ParseOutcome(t.Tick) {
		case "":
			c.Failed++
			continue
		case ParseStrict:
			c.Strict++
		case ParseRepaired:
			c.Repaired++
		case ParseRefused:
			c.Refused++
		}
		got[t.N] = ActionName(t.Tick)
		pt, ct := t.Usage.PromptTokens, t.Usage.CompletionTokens
		if pt == 0 || ct == 0 {
			c.Estimated++
			if pt == 0 {
				pt = tok.Request(t.Request)
			}
			if ct == 0 {
				ct = tok.Count(t.Raw)
			}
		}
		c.PromptTokens += pt
		c.CompletionTokens += ct
		if t.Usage.CachedTokens > 0 {
			c.CachedTokens += t.Usage.CachedTokens
			c.CachedCalls++
		}
		c.LatenciesMS = append(c.LatenciesMS, t.LatencyMS)
	}
	for n, want := range expected {
		c.ActionTotal++
		if got[n] == want {
			c.ActionHit++
		}
	}
	for _, r := range run.Events {
		e := r.Event.Expect
		if e == nil {
			continue
		}
		spoke := len(r.Sent) > 0
		switch e.Reply {
		case replay.ReplyYes:
			if spoke {
				c.TP++
			} else {
				c.FN++
			}
		case replay.ReplyNo:
			if spoke {
				c.FP++
			} else {
				c.TN++
			}
		}
		if e.Contains != "" {
			c.ContainsTotal++
			if anyMatch(e.Contains, r.Sent) {
				c.ContainsHit++
			}
		}
		if e.NotContains != "" {
			c.NotContainsAll++
			if !anyMatch(e.NotContains, r.Sent) {
				c.NotContainsHit++
			}
		}
	}
	return c
}

// anyMatch reports whether a sent message matches the expression; the
// session reader has checked that it compiles.
func anyMatch(expr string, sent []actions.Effect) bool {
	re, err := regexp.Compile(expr)
	if err != nil {
		return false
	}
	for _, e := range sent {
		if re.MatchString(e.Content) {
			return true
		}
	}
	return false
}

// ActionName returns the name of the tick's action, "" when it had none.
func ActionName(t state.Tick) string {
	var a struct {
		Action string `json:"action"`
	}
	if len(t.Action) == 0 || json.Unmarshal(t.Action, &a) != nil {
		return ""
	}
	return a.Action
}

// Metric names, the keys of Values (and of airi eval --json).
const (
	MMessages         = "messages"
	MCalls            = "calls"
	MCallsFailed      = "calls.failed"
	MCallsPerMessage  = "calls_per_message"
	MParseStrict      = "parse.strict"
	MParseRepaired    = "parse.repaired"
	MParseRefused     = "parse.refused"
	MSpeakLabelled    = "speak.labelled"
	MSpeakPrecision   = "speak.precision"
	MSpeakRecall      = "speak.recall"
	MSpeakF1          = "speak.f1"
	MContainsHits     = "contains.hits"
	MContainsTotal    = "contains.total"
	MNotContainsHits  = "not_contains.hits"
	MNotContainsTotal = "not_contains.total"
	MActionHits       = "action.hits"
	MActionTotal      = "action.total"
	MTokensPerCall    = "tokens_per_call"
	MPromptPerCall    = "prompt_tokens_per_call"
	MCompletionPerCal = "completion_tokens_per_call"
	MCachedPerCall    = "cached_tokens_per_call"
	MTokensEstimated  = "tokens.estimated"
	MPrefixReuse      = "prefix_reuse"
	MCost             = "cost"
	MCostPerMessage   = "cost_per_message"
	MLatencyP50       = "latency.p50_ms"
	MLatencyP95       = "latency.p95_ms"
)

// MetricNames lists the metrics in the order reports show them.
var MetricNames = []string{
	MMessages, MCalls, MCallsFailed, MCallsPerMessage,
	MParseStrict, MParseRepaired, MParseRefused,
	MSpeakLabelled, MSpeakPrecision, MSpeakRecall, MSpeakF1,
	MContainsHits, MContainsTotal, MNotContainsHits, MNotContainsTotal, MActionHits, MActionTotal,
	MTokensPerCall, MPromptPerCall, MCompletionPerCal, MCachedPerCall, MTokensEstimated, MPrefixReuse,
	MCost, MCostPerMessage, MLatencyP50, MLatencyP95,
}

// Values returns the metrics of c by name; a metric that is undefined
// (no labelled message, no price, nothing cached reported) is absent.
func (c Counts) Values(p Prices) map[string]float64 {
	v := map[string]float64{
		MMessages:         float64(c.Messages),
		MCalls:            float64(c.Calls),
		MCallsFailed:      float64(c.Failed),
		MSpeakLabelled:    float64(c.TP + c.FP + c.FN + c.TN),
		MContainsHits:     float64(c.ContainsHit),
		MContainsTotal:    float64(c.ContainsTotal),
		MNotContainsHits:  float64(c.NotContainsHit),
		MNotContainsTotal: float64(c.NotContainsAll),
		MActionHits:       float64(c.ActionHit),
		MActionTotal:      float64(c.ActionTotal),
		MTokensEstimated:  float64(c.Estimated),
	}
	ratio := func(name string, a, b float64) {
		if b > 0 {
			v[name] = a / b
		}
	}
	ratio(MCallsPerMessage, float64(c.Calls), float64(c.Messages))
	answered := float64(c.Strict + c.Repaired + c.Refused)
	ratio(MParseStrict, float64(c.Strict), answered)
	ratio(MParseRepaired, float64(c.Repaired), answered)
	ratio(MParseRefused, float64(c.Refused), answered)
	ratio(MSpeakPrecision, float64(c.TP), float64(c.TP+c.FP))
	ratio(MSpeakRecall, float64(c.TP), float64(c.TP+c.FN))
	if pr, ok := v[MSpeakPrecision]; ok {
		if rc, ok := v[MSpeakRecall]; ok && pr+rc > 0 {
			v[MSpeakF1] = 2 * pr * rc / (pr + rc)
		}
	}
	ratio(MTokensPerCall, float64(c.PromptTokens+c.CompletionTokens), answered)
	ratio(MPromptPerCall, float64(c.PromptTokens), answered)
	ratio(MCompletionPerCal, float64(c.CompletionTokens), answered)
	if c.CachedCalls > 0 {
		ratio(MCachedPerCall, float64(c.CachedTokens), answered)
	}
	ratio(MPrefixReuse, c.PrefixSum, float64(c.PrefixCalls))
	if p.In != nil && p.Out != nil {
		cached := *p.In
		if p.Cached != nil {
			cached = *p.Cached
		}
		uncached := float64(c.PromptTokens - c.CachedTokens)
		money := (uncached**p.In + float64(c.CachedTokens)*cached + float64(c.CompletionTokens)**p.Out) / 1e6
		v[MCost] = money
		ratio(MCostPerMessage, money, float64(c.Messages))
	}
	if len(c.LatenciesMS) > 0 {
		v[MLatencyP50] = percentile(c.LatenciesMS, 50)
		v[MLatencyP95] = percentile(c.LatenciesMS, 95)
	}
	return v
}

// percentile is the nearest-rank percentile.
func percentile(ms []int64, p float64) float64 {
	s := slices.Clone(ms)
	slices.Sort(s)
	rank := int(math.Ceil(p/100*float64(len(s)))) - 1
	return float64(s[min(max(rank, 0), len(s)-1)])
}

// Stat is one metric over several runs.
type Stat struct {
	Mean, Min, Max float64
	// Runs counts the runs where the metric was defined.
	Runs int
}

// Summarize combines the metric values of several runs.
func Summarize(runs []map[string]float64) map[string]Stat {
	out := map[string]Stat{}
	for _, r := range runs {
		for k, x := range r {
			s, ok := out[k]
			if !ok {
				s = Stat{Min: x, Max: x}
			}
			s.Mean += x
			s.Min, s.Max = min(s.Min, x), max(s.Max, x)
			s.Runs++
			out[k] = s
		}
	}
	for k, s := range out {
		s.Mean /= float64(s.Runs)
		out[k] = s
	}
	return out
}
