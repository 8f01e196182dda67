package eval

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/internal/tokens"
)

// WriteHTML writes the result as one self-contained HTML page (no script,
// no outside resource): the tables of WriteText, then per prompt set,
// session and run the labelled messages with their verdicts and every
// tick with its state message, answer, action and result. All chat text
// is escaped.
func (r *Result) WriteHTML(w io.Writer, tok *tokens.Counter) error {
	var summary strings.Builder
	if err := r.WriteText(&summary, tok); err != nil {
		return err
	}
	page := htmlPage{Summary: summary.String(), Partial: r.Partial}
	for _, v := range r.Variants {
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

type htmlPage struct {
	Summary  string
	Partial  bool
	Variants []htmlVariant
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

var reportTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>airi eval</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
pre { white-space: pre-wrap; word-break: break-word; background: #f6f6f6; padding: .5em; margin: .3em 0; }
table { border-collapse: collapse; margin: .5em 0; }
td, th { border: 1px solid #ccc; padding: .2em .5em; vertical-align: top; text-align: left; }
.fail { background: #fde8e8; }
.ok { background: #e8f6e8; }
details { margin: .2em 0; }
summary { cursor: pointer; }
.tick > summary { font-family: monospace; }
.label { color: #666; font-size: 12px; }
#summary { white-space: pre; overflow-x: auto; }
</style>
</head>
<body>
<h1>airi eval</h1>
{{if .Partial}}<p class="fail">Interrupted: only the runs that completed are shown.</p>{{end}}
<pre id="summary">{{.Summary}}</pre>
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
<table class="events">
<tr><th>time</th><th>sender</th><th>message</th><th>expect</th><th>wake</th><th>sent in that wake</th><th>verdict</th></tr>
{{range .Events}}<tr{{if .Expect}} class="{{if .OK}}ok{{else}}fail{{end}}"{{end}}><td>{{.Time}}</td><td>{{.Sender}}</td><td>{{.Content}}</td><td>{{.Expect}}</td><td>{{if .Wake}}{{.Wake}}{{else}}never shown{{end}}</td><td><pre>{{.Sent}}</pre></td><td>{{.Verdict}}</td></tr>
{{end}}</table>
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
