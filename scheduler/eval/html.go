package eval

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/internal/tokens"
)

// WriteHTML writes the result as one self-contained HTML page (no script,
// no outside resource): per prompt set a table of scores, a row per
// session and the overall row (the figures of WriteText, one metric a
// cell), and the deltas from the first set; then per prompt set, session
// and run the labelled messages with their verdicts and every tick with
// its state message, answer, action and result. All chat text is escaped.
func (r *Result) WriteHTML(w io.Writer, tok *tokens.Counter) error {
	page := htmlPage{Partial: r.Partial}
	var base Scores
	for i, v := range r.Variants {
		ov := v.Overall(tok, r.Prices)
		sum := htmlSummary{Label: v.Label(), Runs: r.Runs}
		sum.Top, sum.Sub = htmlHeaders()
		for _, s := range v.Sessions {
			sum.Rows = append(sum.Rows, htmlScoresRow(s.Name, s.Score(tok, r.Prices), false))
			for _, e := range s.Errors {
				sum.Errors = append(sum.Errors, s.Name+": "+e)
			}
		}
		sum.Rows = append(sum.Rows, htmlScoresRow("overall", ov, true))
		if i == 0 {
			base = ov
		} else {
			sum.Delta = htmlDeltaOf(r.Variants[0].Label(), v.Label(), base, ov)
		}
		page.Summaries = append(page.Summaries, sum)

		hv := htmlVariant{Label: v.Label()}
		for _, s := range v.Sessions {
			hs := htmlSession{Name: s.Name, Channel: s.Session.Header.Channel.ID, Errors: s.Errors}
			for i, run := range s.Runs {
				hs.Runs = append(hs.Runs, htmlRunOf(i+1, run))
			}
			hv.Sessions = append(hv.Sessions, hs)
		}
		page.Variants = append(page.Variants, hv)
	}
	if err := reportTemplate.Execute(w, page); err != nil {
		return fmt.Errorf("write eval report: %w", err)
	}
	return nil
}

// htmlTitles name the terminal table's columns in full for the page's
// table headers (the terminal keeps its short titles to stay narrow), and
// htmlGroups put related columns under one heading, so that the headers
// stay short enough for the table to fit a desktop window.
var (
	htmlTitles = map[string]string{
		MMessages:        "messages",
		MCallsPerMessage: "calls per message",
		MTokensPerCall:   "tokens per call",
		MCachedPerCall:   "cached per call",
		MPrefixReuse:     "prefix reuse",
		MParseStrict:     "strict",
		MParseRepaired:   "repaired",
		MParseRefused:    "refused",
		MSpeakPrecision:  "precision",
		MSpeakRecall:     "recall",
		MSpeakF1:         "F1",
		MLatencyP50:      "p50",
		MLatencyP95:      "p95",
		MCost:            "cost",
		htmlContains:     "contains",
		htmlNotContains:  "not contains",
		htmlAction:       "action",
	}
	htmlGroups = map[string]string{
		MParseStrict: "parse", MParseRepaired: "parse", MParseRefused: "parse",
		MSpeakPrecision: "speaking", MSpeakRecall: "speaking", MSpeakF1: "speaking",
		MLatencyP50: "latency (ms)", MLatencyP95: "latency (ms)",
		htmlContains: "labels passed", htmlNotContains: "labels passed", htmlAction: "labels passed",
	}
)

// Metric names of the ratio columns, as the page's cells carry them.
const (
	htmlContains    = "contains"
	htmlNotContains = "not_contains"
	htmlAction      = "action"
)

// htmlHeaders lays out the two header rows of the scores table: a
// column of its own spans both rows, a group's heading spans its columns
// in the first row and their titles make the second.
func htmlHeaders() (top, sub []htmlHeader) {
	metrics := []string{}
	for _, c := range columns {
		metrics = append(metrics, c.metric)
	}
	metrics = append(metrics, htmlContains, htmlNotContains, htmlAction)
	for _, m := range metrics {
		title := htmlTitles[m]
		g := htmlGroups[m]
		if g == "" {
			top = append(top, htmlHeader{Title: title, Metric: m, Rows: 2, Cols: 1})
			continue
		}
		if n := len(top); n > 0 && top[n-1].Group && top[n-1].Title == g {
			top[n-1].Cols++
		} else {
			top = append(top, htmlHeader{Title: g, Group: true, Rows: 1, Cols: 1})
		}
		sub = append(sub, htmlHeader{Title: title, Metric: m, Rows: 1, Cols: 1})
	}
	return top, sub
}

// htmlScoresRow is one row of the scores table: a metric's mean per cell,
// and its spread over the runs beneath it when it varied.
func htmlScoresRow(name string, s Scores, overall bool) htmlRow {
	row := htmlRow{Name: strings.Split(name, "/"), Runs: s.Runs, Overall: overall}
	for _, c := range columns {
		hc := htmlCell{Metric: c.metric, Value: "-"}
		if st, ok := s.Stats[c.metric]; ok {
			hc.Value = c.format(st.Mean)
			// A spread too small to show at the column's precision is
			// no spread for the reader.
			if lo, hi := c.format(st.Min), c.format(st.Max); lo != hi {
				hc.Range = lo + "–" + hi
			}
		}
		row.Cells = append(row.Cells, hc)
	}
	row.Cells = append(row.Cells,
		htmlCell{Metric: htmlContains, Value: ratioCell(s, MContainsHits, MContainsTotal)},
		htmlCell{Metric: htmlNotContains, Value: ratioCell(s, MNotContainsHits, MNotContainsTotal)},
		htmlCell{Metric: htmlAction, Value: ratioCell(s, MActionHits, MActionTotal)})
	return row
}

// htmlDeltaOf compares the overall scores of two prompt sets on the
// metrics the terminal's delta lines show.
func htmlDeltaOf(from, to string, a, c Scores) *htmlDelta {
	d := &htmlDelta{From: from, To: to}
	for _, k := range deltaMetrics {
		x, okA := a.Stats[k]
		y, okC := c.Stats[k]
		if !okA || !okC {
			continue
		}
		row := htmlDeltaRow{
			Metric: k, From: fmt.Sprintf("%.4g", x.Mean), To: fmt.Sprintf("%.4g", y.Mean),
			Change: fmt.Sprintf("%+.4g", y.Mean-x.Mean),
		}
		if x.Mean != 0 {
			row.Relative = fmt.Sprintf("%+.1f%%", 100*(y.Mean-x.Mean)/math.Abs(x.Mean))
		}
		d.Rows = append(d.Rows, row)
	}
	return d
}

type htmlPage struct {
	Partial   bool
	Summaries []htmlSummary
	Variants  []htmlVariant
}

// htmlSummary is the scores of one prompt set.
type htmlSummary struct {
	Label string
	Runs  int
	// Top and Sub are the two rows of column headers.
	Top, Sub []htmlHeader
	Rows     []htmlRow
	Errors   []string
	// Delta compares the set with the first one; nil for the first.
	Delta *htmlDelta
}

type htmlHeader struct {
	Title string
	// Metric is the --json key of the column; empty for a group's heading.
	Metric string
	Group  bool
	// Rows and Cols are the rows and columns the header spans.
	Rows, Cols int
}

type htmlRow struct {
	// Name is the session's name split at its slashes, where a long path
	// may break onto the next line.
	Name    []string
	Runs    int
	Overall bool
	Cells   []htmlCell
}

type htmlCell struct {
	// Metric is the cell's --json key (or contains, not_contains, action).
	Metric string
	Value  string
	// Range is the lowest and highest value over the runs, when they differ.
	Range string
}

type htmlDelta struct {
	From, To string
	Rows     []htmlDeltaRow
}

type htmlDeltaRow struct {
	Metric, From, To, Change, Relative string
}

type htmlVariant struct {
	Label    string
	Sessions []htmlSession
}

type htmlSession struct {
	Name, Channel string
	Errors        []string
	Runs          []htmlRun
}

type htmlRun struct {
	N      int
	Events []htmlEvent
	Ticks  []htmlTick
}

type htmlEvent struct {
	Time, Sender, Content, Expect, Sent, Verdict string
	Wake                                         int64
	OK                                           bool
}

type htmlTick struct {
	N                                         int
	Wake                                      int64
	Trigger, Now, Action, Parse, Error, Notes string
	State, Raw, ActionJSON, Result, Effects   string
	PromptTokens, CompletionTokens, LatencyMS int
	Sections                                  []string
}

func htmlRunOf(n int, run *Run) htmlRun {
	hr := htmlRun{N: n}
	for _, e := range run.Events {
		he := htmlEvent{Time: e.Event.Time.Format("15:04:05"), Sender: e.Event.Sender, Content: e.Event.Content, Wake: e.Wake, OK: true}
		var sent []string
		for _, s := range e.Sent {
			sent = append(sent, s.Content)
		}
		he.Sent = strings.Join(sent, "\n")
		if x := e.Event.Expect; x != nil {
			var parts, fails []string
			if x.Reply != "" {
				parts = append(parts, "reply "+x.Reply)
			}
			if x.Contains != "" {
				parts = append(parts, "contains /"+x.Contains+"/")
			}
			if x.NotContains != "" {
				parts = append(parts, "not_contains /"+x.NotContains+"/")
			}
			he.Expect = strings.Join(parts, ", ")
			spoke := len(e.Sent) > 0
			switch {
			case x.Reply == "yes" && !spoke:
				fails = append(fails, "stayed quiet")
			case x.Reply == "no" && spoke:
				fails = append(fails, "spoke")
			}
			if x.Contains != "" && !anyMatch(x.Contains, e.Sent) {
				fails = append(fails, "no match")
			}
			if x.NotContains != "" && anyMatch(x.NotContains, e.Sent) {
				fails = append(fails, "forbidden match")
			}
			he.OK = len(fails) == 0
			he.Verdict = "ok"
			if !he.OK {
				he.Verdict = strings.Join(fails, ", ")
			}
		}
		hr.Events = append(hr.Events, he)
	}
	for _, t := range run.Ticks {
		ht := htmlTick{
			N: t.N, Wake: t.Wake, Trigger: t.Trigger, Now: t.Now.Format("15:04:05.000"), Action: ActionName(t.Tick),
			Parse: ParseOutcome(t.Tick), Raw: t.Raw, Result: t.Result, Notes: strings.Join(t.Notes, "; "),
			PromptTokens: t.Usage.PromptTokens, CompletionTokens: t.Usage.CompletionTokens, LatencyMS: int(t.LatencyMS),
		}
		switch {
		case t.ModelError != "":
			ht.Error = t.ModelError
			ht.Parse = "failed"
		case t.ParseError != "":
			ht.Error = t.ParseError
		}
		if len(t.Request) > 0 {
			ht.State = t.Request[len(t.Request)-1].Content
		}
		if len(t.Action) > 0 {
			ht.ActionJSON = string(t.Action)
		}
		var effs []string
		for _, e := range effects(t.Tick) {
			effs = append(effs, effectLine(e))
		}
		ht.Effects = strings.Join(effs, "\n")
		for _, s := range t.Sections {
			ht.Sections = append(ht.Sections, fmt.Sprintf("%s (%s, message %d, %d bytes)", s.Name, s.Cache, s.Message, s.End-s.Start))
		}
		hr.Ticks = append(hr.Ticks, ht)
	}
	return hr
}

func effectLine(e actions.Effect) string {
	b, err := json.Marshal(e)
	if err != nil {
		return e.Content
	}
	return string(b)
}

// reportTemplate lays the page out for a phone as well as a desktop: a
// wide table scrolls inside its own box (.scroll), so the page itself is
// never wider than the window, and the session column stays in view
// while the figures scroll past it.
var reportTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>airi eval</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1, h2, h3 { overflow-wrap: anywhere; }
pre { white-space: pre-wrap; word-break: break-word; overflow-wrap: anywhere; background: #f6f6f6; padding: .5em; margin: .3em 0; }
table { border-collapse: collapse; margin: .5em 0; }
td, th { border: 1px solid #ccc; padding: .2em .5em; vertical-align: top; text-align: left; }
.scroll { max-width: 100%; overflow-x: auto; margin: .5em 0; }
.scroll > table { margin: 0; }
table.events td { overflow-wrap: anywhere; min-width: 4em; }
table.scores { font-size: 13px; }
table.scores th, table.scores td { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; padding: .2em .4em; }
table.scores th { white-space: normal; vertical-align: bottom; font-size: 12px; }
table.scores tbody th { vertical-align: top; font-size: 13px; }
table.scores th.group { text-align: center; }
table.scores .name { text-align: left; white-space: normal; overflow-wrap: anywhere; min-width: 8em; max-width: 18em; position: sticky; left: 0; background: #fff; }
table.scores tr.overall td, table.scores tr.overall th { font-weight: 600; border-top: 2px solid #888; }
table.scores .range { display: block; font-size: 11px; font-weight: normal; color: #666; }
table.delta td { font-variant-numeric: tabular-nums; }
.fail { background: #fde8e8; }
.ok { background: #e8f6e8; }
details { margin: .2em 0; }
summary { cursor: pointer; overflow-wrap: anywhere; }
.tick > summary { font-family: monospace; }
.label { color: #666; font-size: 12px; }
@media (max-width: 600px) {
  body { margin: .6em; }
  h1 { font-size: 1.5em; }
}
</style>
</head>
<body>
<h1>airi eval</h1>
{{if .Partial}}<p class="fail">Interrupted: only the runs that completed are shown.</p>{{end}}
{{range .Summaries}}
<section class="summary">
<h2>scores: {{.Label}}</h2>
<p class="label">runs per session: {{.Runs}}; a figure that varied shows its range over the runs beneath it</p>
<div class="scroll" role="region" aria-label="scores of {{.Label}}" tabindex="0">
<table class="scores">
<thead>
<tr><th class="name" scope="col" rowspan="2">session</th><th scope="col" rowspan="2">runs</th>{{range .Top}}{{if .Group}}<th scope="colgroup" colspan="{{.Cols}}" class="group">{{.Title}}</th>{{else}}<th scope="col" rowspan="{{.Rows}}" data-metric="{{.Metric}}" title="{{.Metric}}">{{.Title}}</th>{{end}}{{end}}</tr>
<tr>{{range .Sub}}<th scope="col" data-metric="{{.Metric}}" title="{{.Metric}}">{{.Title}}</th>{{end}}</tr>
</thead>
<tbody>
{{range .Rows}}<tr{{if .Overall}} class="overall"{{end}}><th class="name" scope="row">{{range $i, $p := .Name}}{{if $i}}/<wbr>{{end}}{{$p}}{{end}}</th><td data-metric="runs">{{.Runs}}</td>{{range .Cells}}<td data-metric="{{.Metric}}">{{.Value}}{{if .Range}}<span class="range">{{.Range}}</span>{{end}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
</div>
{{range .Errors}}<p class="fail">error in {{.}}</p>{{end}}
{{with .Delta}}
<h3>delta {{.From}} → {{.To}}</h3>
<div class="scroll" role="region" aria-label="delta from {{.From}} to {{.To}}" tabindex="0">
<table class="delta">
<thead><tr><th scope="col">metric</th><th scope="col">{{.From}}</th><th scope="col">{{.To}}</th><th scope="col">change</th><th scope="col">relative</th></tr></thead>
<tbody>
{{range .Rows}}<tr><th scope="row">{{.Metric}}</th><td>{{.From}}</td><td>{{.To}}</td><td>{{.Change}}</td><td>{{.Relative}}</td></tr>
{{end}}</tbody>
</table>
</div>
{{end}}
</section>
{{end}}
{{range .Variants}}
<section class="variant">
<h2>prompts: {{.Label}}</h2>
{{range .Sessions}}
<section class="session">
<h3>{{.Name}} <span class="label">channel {{.Channel}}</span></h3>
{{range .Errors}}<p class="fail">{{.}}</p>{{end}}
{{range .Runs}}
<details class="run"{{if eq .N 1}} open{{end}}>
<summary>run {{.N}}: {{len .Ticks}} ticks</summary>
<div class="scroll">
<table class="events">
<tr><th>time</th><th>sender</th><th>message</th><th>expect</th><th>wake</th><th>sent in that wake</th><th>verdict</th></tr>
{{range .Events}}<tr{{if .Expect}} class="{{if .OK}}ok{{else}}fail{{end}}"{{end}}><td>{{.Time}}</td><td>{{.Sender}}</td><td>{{.Content}}</td><td>{{.Expect}}</td><td>{{if .Wake}}{{.Wake}}{{else}}never shown{{end}}</td><td><pre>{{.Sent}}</pre></td><td>{{.Verdict}}</td></tr>
{{end}}</table>
</div>
{{range .Ticks}}
<details class="tick">
<summary>#{{.N}} · wake {{.Wake}} · {{.Trigger}} · {{.Now}} · {{if .Action}}{{.Action}}{{else}}no action{{end}} · {{.Parse}} · {{.PromptTokens}}+{{.CompletionTokens}} tokens · {{.LatencyMS}} ms</summary>
{{if .Error}}<p class="fail">{{.Error}}</p>{{end}}
{{if .Notes}}<p class="label">parser notes: {{.Notes}}</p>{{end}}
<div class="label">state message</div><pre>{{.State}}</pre>
<div class="label">answer</div><pre>{{.Raw}}</pre>
<div class="label">action</div><pre>{{.ActionJSON}}</pre>
<div class="label">result</div><pre>{{.Result}}</pre>
{{if .Effects}}<div class="label">sent</div><pre>{{.Effects}}</pre>{{end}}
{{if .Sections}}<div class="label">sections</div><ul>{{range .Sections}}<li>{{.}}</li>{{end}}</ul>{{end}}
</details>
{{end}}
</details>
{{end}}
</section>
{{end}}
</section>
{{end}}
</body>
</html>
`))
