package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/airi-go/airi/internal/tokens"
	"github.com/airi-go/airi/scheduler/replay"
)

// Result is everything one airi eval found: per prompt set, per session,
// every run.
type Result struct {
	// Runs is how many runs of each session were asked for.
	Runs   int
	Prices Prices
	// Variants are the prompt sets, the first being the baseline of the deltas.
	Variants []*Variant
	// Partial is set when the evaluation was stopped before every run ended.
	Partial bool
}

// Variant is the sessions played with one prompt set.
type Variant struct {
	// Prompts is the prompt directory; "" means the configured prompts.
	Prompts  string
	Sessions []*SessionResult
}

// SessionResult is the runs of one session.
type SessionResult struct {
	// Name names the session for people: its file, and its place in the
	// file when the file holds several.
	Name    string
	Session *replay.Session
	// Runs are the runs that completed, in order.
	Runs []*Run
	// Errors are the runs that could not complete.
	Errors []string
}

// Label is how reports name a prompt set.
func (v *Variant) Label() string {
	if v.Prompts == "" {
		return "(configured prompts)"
	}
	return v.Prompts
}

// Scores are the summarized metrics of one scope (a session or overall).
type Scores struct {
	Stats map[string]Stat
	// Runs counts the runs summarized.
	Runs int
}

// Score summarizes the runs of one session.
func (s *SessionResult) Score(tok *tokens.Counter, p Prices) Scores {
	vals := make([]map[string]float64, 0, len(s.Runs))
	for _, r := range s.Runs {
		vals = append(vals, Count(r, tok).Values(p))
	}
	return Scores{Stats: Summarize(vals), Runs: len(s.Runs)}
}

// Overall summarizes a prompt set over all its sessions: run i of the
// whole is run i of every session that has one, its counts added up.
func (v *Variant) Overall(tok *tokens.Counter, p Prices) Scores {
	var runs []Counts
	for _, s := range v.Sessions {
		for i, r := range s.Runs {
			if i == len(runs) {
				runs = append(runs, Counts{})
			}
			runs[i].Add(Count(r, tok))
		}
	}
	vals := make([]map[string]float64, 0, len(runs))
	for _, c := range runs {
		vals = append(vals, c.Values(p))
	}
	return Scores{Stats: Summarize(vals), Runs: len(runs)}
}

// flat writes scores as one JSON object: each metric's mean under its
// name, and "spread" with each metric's min and max over the runs.
func (s Scores) flat() map[string]any {
	out := map[string]any{"runs": s.Runs}
	spread := map[string]any{}
	for k, st := range s.Stats {
		out[k] = round(st.Mean)
		spread[k] = map[string]float64{"min": round(st.Min), "max": round(st.Max)}
	}
	out["spread"] = spread
	return out
}

// round keeps six significant decimals, so reports do not show float noise.
func round(x float64) float64 {
	return math.Round(x*1e6) / 1e6
}

// WriteJSON writes the result as one JSON object: "overall" and
// "sessions" of the first prompt set, and "variants" with every prompt
// set's, each after the first with its "delta" from the first.
func (r *Result) WriteJSON(w io.Writer, tok *tokens.Counter) error {
	type variantDoc struct {
		Prompts  string             `json:"prompts"`
		Overall  map[string]any     `json:"overall"`
		Sessions []map[string]any   `json:"sessions"`
		Delta    map[string]float64 `json:"delta,omitempty"`
	}
	var docs []variantDoc
	var base Scores
	for i, v := range r.Variants {
		ov := v.Overall(tok, r.Prices)
		d := variantDoc{Prompts: v.Label(), Overall: ov.flat(), Sessions: []map[string]any{}}
		for _, s := range v.Sessions {
			m := s.Score(tok, r.Prices).flat()
			m["name"] = s.Name
			m["channel"] = s.Session.Header.Channel.ID
			if len(s.Errors) > 0 {
				m["errors"] = s.Errors
			}
			d.Sessions = append(d.Sessions, m)
		}
		if i == 0 {
			base = ov
		} else {
			d.Delta = delta(base, ov)
		}
		docs = append(docs, d)
	}
	doc := map[string]any{"runs": r.Runs, "partial": r.Partial, "variants": docs}
	if len(docs) > 0 {
		doc["prompts"] = docs[0].Prompts
		doc["overall"] = docs[0].Overall
		doc["sessions"] = docs[0].Sessions
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write eval result: %w", err)
	}
	return nil
}

// delta returns, for every metric both define, b's mean minus a's.
func delta(a, b Scores) map[string]float64 {
	out := map[string]float64{}
	for k, x := range b.Stats {
		if y, ok := a.Stats[k]; ok {
			out[k] = round(x.Mean - y.Mean)
		}
	}
	return out
}

// column is one column of the terminal table.
type column struct {
	title, metric string
	format        func(float64) string
}

func num(prec int) func(float64) string {
	return func(x float64) string { return fmt.Sprintf("%.*f", prec, x) }
}

func pct(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) }

var columns = []column{
	{"msgs", MMessages, num(0)},
	{"calls/msg", MCallsPerMessage, num(2)},
	{"tok/call", MTokensPerCall, num(0)},
	{"cached/call", MCachedPerCall, num(0)},
	{"prefix", MPrefixReuse, pct},
	{"strict", MParseStrict, pct},
	{"repaired", MParseRepaired, pct},
	{"refused", MParseRefused, pct},
	{"P", MSpeakPrecision, num(2)},
	{"R", MSpeakRecall, num(2)},
	{"F1", MSpeakF1, num(2)},
	{"p50ms", MLatencyP50, num(0)},
	{"p95ms", MLatencyP95, num(0)},
	{"cost", MCost, num(4)},
}

// cell shows a metric's mean, and its spread over the runs when it varied.
func cell(s Scores, c column) string {
	st, ok := s.Stats[c.metric]
	if !ok {
		return "-"
	}
	out := c.format(st.Mean)
	if st.Max > st.Min {
		out += " (" + c.format(st.Min) + "–" + c.format(st.Max) + ")"
	}
	return out
}

// ratioCell shows hits of a total, summed over runs as means.
func ratioCell(s Scores, hits, total string) string {
	t, ok := s.Stats[total]
	if !ok || t.Mean == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3g/%.3g", s.Stats[hits].Mean, t.Mean)
}

// WriteText writes the result as tables for the terminal: one per prompt
// set, a row per session and the overall row, then the deltas.
func (r *Result) WriteText(w io.Writer, tok *tokens.Counter) error {
	var b strings.Builder
	var base Scores
	for i, v := range r.Variants {
		fmt.Fprintf(&b, "prompts: %s · runs per session: %d\n", v.Label(), r.Runs)
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		titles := []string{"session", "runs"}
		for _, c := range columns {
			titles = append(titles, c.title)
		}
		titles = append(titles, "contains", "not_contains", "action")
		fmt.Fprintln(tw, strings.Join(titles, "\t"))
		row := func(name string, s Scores) {
			cells := []string{name, fmt.Sprint(s.Runs)}
			for _, c := range columns {
				cells = append(cells, cell(s, c))
			}
			cells = append(cells, ratioCell(s, MContainsHits, MContainsTotal), ratioCell(s, MNotContainsHits, MNotContainsTotal),
				ratioCell(s, MActionHits, MActionTotal))
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		for _, s := range v.Sessions {
			row(s.Name, s.Score(tok, r.Prices))
		}
		ov := v.Overall(tok, r.Prices)
		row("overall", ov)
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, s := range v.Sessions {
			for _, e := range s.Errors {
				fmt.Fprintf(&b, "error in %s: %s\n", s.Name, e)
			}
		}
		if i == 0 {
			base = ov
		} else {
			writeDelta(&b, r.Variants[0].Label(), v.Label(), base, ov)
		}
		b.WriteString("\n")
	}
	if r.Partial {
		b.WriteString("interrupted: partial result (only the runs that completed)\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// deltaMetrics are the metrics the delta lines compare.
var deltaMetrics = []string{MCallsPerMessage, MTokensPerCall, MPromptPerCall, MCachedPerCall, MPrefixReuse,
	MParseStrict, MParseRefused, MSpeakPrecision, MSpeakRecall, MSpeakF1, MLatencyP50, MCostPerMessage}

func writeDelta(b *strings.Builder, from, to string, a, c Scores) {
	fmt.Fprintf(b, "delta %s → %s:\n", from, to)
	for _, k := range deltaMetrics {
		x, okA := a.Stats[k]
		y, okC := c.Stats[k]
		if !okA || !okC {
			continue
		}
		rel := ""
		if x.Mean != 0 {
			rel = fmt.Sprintf(" (%+.1f%%)", 100*(y.Mean-x.Mean)/math.Abs(x.Mean))
		}
		fmt.Fprintf(b, "  %-28s %10.4g → %-10.4g %+.4g%s\n", k, x.Mean, y.Mean, y.Mean-x.Mean, rel)
	}
}
