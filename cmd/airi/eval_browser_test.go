package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/airi-go/airi/planner/openai/openaitest"
)

// TestEvalHTMLReportInBrowser opens the HTML report in headless Chromium:
// no console error, one drill-down per tick, and chat text that looks
// like markup shown as text, not run.
func TestEvalHTMLReportInBrowser(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (apt-get install -y chromium); the HTML report is not checked in a browser")
	}
	dir := t.TempDir()
	session := filepath.Join(dir, "markup.jsonl")
	lines := []string{
		`{"airi_session":1,"channel":{"id":"g1","platform":"telegram","group":true,"title":"<i>Owls</i>"},"platform":"telegram","turn":"send-ends","settings":{"interrupt":true}}`,
		`{"type":"event","time":"2026-04-02T21:00:00Z","platformId":"1","sender":"<b>Mika</b>","content":"Juni <script>document.title='pwned'</script>","expect":{"reply":"yes"}}`,
		`{"type":"event","time":"2026-04-02T21:00:30Z","platformId":"2","sender":"Ana","content":"<img src=x onerror=\"document.title='pwned'\">","expect":{"reply":"no"}}`,
		`{"type":"event","time":"2026-04-02T21:05:00Z","platformId":"3","sender":"Ana","content":"Juni & co: 2 < 3","expect":{"reply":"yes","contains":"echo"}}`,
	}
	if err := os.WriteFile(session, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := openaitest.NewServer(t, openaitest.Echo(openaitest.EchoOptions{}))
	report := filepath.Join(dir, "report.html")
	code, out, stderr := runEval(t, srv.URL(), "--json", "--runs", "2", "--html", report, session,
		filepath.Join(evalSessions, "direct-help.jsonl"))
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	doc := decodeEval(t, out)
	ticks := 2 * int(metric(doc.Overall, "calls"))
	if ticks != srv.Calls() {
		t.Fatalf("report counts %d ticks over 2 runs, the model saw %d calls", ticks, srv.Calls())
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.UserDataDir(filepath.Join(dir, "chromium")))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, time.Minute)
	defer cancelTimeout()
	var (
		mu       sync.Mutex
		problems []string
	)
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				problems = append(problems, fmt.Sprintf("console %s", e.Type))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				problems = append(problems, "log: "+e.Entry.Text)
			}
		}
	}); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	var (
		title            string
		tickCount        int
		scripts, images  int
		text, firstState string
	)
	err = chromedp.Do(ctx, chromedp.Navigate("file://"+report), chromedp.WaitReady(chromedp.CSS("body")))
	if err == nil {
		title, err = chromedp.Run(ctx, chromedp.Title())
	}
	for _, q := range []struct {
		js  string
		dst any
	}{
		{`document.querySelectorAll("details.tick").length`, &tickCount},
		{`document.querySelectorAll("script").length`, &scripts},
		{`document.querySelectorAll("img").length`, &images},
		{`document.body.innerText`, &text},
		{`document.querySelector("details.tick pre").textContent`, &firstState},
	} {
		if err != nil {
			break
		}
		switch dst := q.dst.(type) {
		case *int:
			*dst, err = chromedp.Run(ctx, chromedp.Evaluate[int](q.js))
		case *string:
			*dst, err = chromedp.Run(ctx, chromedp.Evaluate[string](q.js))
		}
	}
	if err != nil {
		t.Fatalf("open the report in chromium: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Errorf("the report logged problems: %v", problems)
	}
	if title != "airi eval" {
		t.Errorf("title %q: chat text ran as script", title)
	}
	if tickCount != ticks {
		t.Errorf("the report shows %d ticks, the runs made %d", tickCount, ticks)
	}
	if scripts != 0 || images != 0 {
		t.Errorf("chat text became markup: %d script and %d img elements", scripts, images)
	}
	for _, want := range []string{"<script>document.title='pwned'</script>", "<b>Mika</b>", "Juni & co: 2 < 3"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not show %q as text", want)
		}
	}
	if !strings.Contains(firstState, "[runtime state]") {
		t.Errorf("a tick's drill-down should start with its state message, got %.80q", firstState)
	}
}

// summaryCheck is what the page reports about one cell of the scores
// table, from summaryJS.
type summaryCheck struct {
	Metric    string `json:"metric"`
	Row       string `json:"row"`
	Text      string `json:"text"`
	InView    bool   `json:"inView"`
	Reachable bool   `json:"reachable"`
}

// summaryLayout is the page's width and the cells summaryJS looked at.
type summaryLayout struct {
	ScrollWidth int            `json:"scrollWidth"`
	InnerWidth  int            `json:"innerWidth"`
	Scrolls     bool           `json:"scrolls"`
	Cells       []summaryCheck `json:"cells"`
}

// summaryJS finds, for every row of every scores table, the cells of the
// metrics a reader looks for first. A cell is in view when it lies within
// the window; otherwise it is reachable when scrolling its .scroll box
// brings it wholly inside that box, and the box inside the window.
const summaryJS = `(() => {
  const out = {scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, scrolls: false, cells: []};
  const inside = (r, left, right) => r.width > 0 && r.left >= left - 0.5 && r.right <= right + 0.5;
  for (const box of document.querySelectorAll(".summary .scroll")) {
    out.scrolls = out.scrolls || box.scrollWidth > box.clientWidth;
  }
  for (const m of ["speak.precision", "speak.recall", "latency.p50_ms", "latency.p95_ms", "cost"]) {
    for (const cell of document.querySelectorAll('table.scores td[data-metric="' + m + '"]')) {
      const c = {metric: m, row: cell.parentElement.querySelector("th").textContent, text: cell.textContent};
      c.inView = inside(cell.getBoundingClientRect(), 0, window.innerWidth);
      c.reachable = c.inView;
      const box = cell.closest(".scroll");
      if (!c.inView && box) {
        cell.scrollIntoView({block: "nearest", inline: "nearest"});
        const b = box.getBoundingClientRect();
        c.reachable = inside(b, 0, window.innerWidth) && inside(cell.getBoundingClientRect(), b.left, b.right);
        box.scrollLeft = 0;
      }
      out.cells.push(c);
    }
  }
  window.scrollTo(0, 0);
  return out;
})()`

// TestEvalHTMLReportFitsTheScreen opens the HTML report on a phone (390
// px) and a desktop (1280 px): the page is never wider than the window,
// and precision, recall, latency and cost of every row of the scores
// table are on screen or come into view by scrolling the table's own box.
func TestEvalHTMLReportFitsTheScreen(t *testing.T) {
	chromium := chromiumPath()
	if chromium == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); the HTML report's layout is not checked in a browser")
	}
	dir := t.TempDir()
	// A second prompt set that changes nothing, so the report has two
	// score tables and a delta table; a long file name tests the session
	// column.
	same := filepath.Join(dir, "prompts-unchanged")
	if err := os.Mkdir(same, 0o755); err != nil {
		t.Fatal(err)
	}
	long := filepath.Join(dir, "a-rather-long-session-name-from-a-real-group-export-2026-04-02.jsonl")
	if err := os.WriteFile(long, mustReadFile(t, filepath.Join(evalSessions, "direct-help.jsonl")), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := openaitest.NewServer(t, openaitest.Echo(openaitest.EchoOptions{}))
	report := filepath.Join(dir, "report.html")
	code, _, stderr := runEval(t, srv.URL(), "--runs", "2", "--prompts", "", "--prompts", same,
		"--price-in", "0.15", "--price-out", "0.6", "--html", report,
		filepath.Join(evalSessions, "direct-help.jsonl"), long)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}

	b := newBrowser(t, chromium)
	for _, screen := range []struct {
		name          string
		width, height int64
		opts          []chromedp.EmulateViewportOption
	}{
		{"phone", 390, 844, []chromedp.EmulateViewportOption{chromedp.EmulateMobile, chromedp.EmulateScale(2)}},
		{"desktop", 1280, 900, nil},
	} {
		if err := chromedp.Do(b.ctx, chromedp.EmulateViewport(screen.width, screen.height, screen.opts...)); err != nil {
			t.Fatal(err)
		}
		b.open("file://"+report, "h1")
		l := jsEval[summaryLayout](b, summaryJS)
		b.shot("eval-report-" + screen.name)
		inView := 0
		for _, c := range l.Cells {
			if c.InView {
				inView++
			}
		}
		t.Logf("%s: page %d px in a %d px window; %d of %d summary cells on screen, the table scrolls inside its box: %v",
			screen.name, l.ScrollWidth, l.InnerWidth, inView, len(l.Cells), l.Scrolls)
		if l.InnerWidth != int(screen.width) {
			t.Errorf("%s: the window is %d px wide, want %d (is the viewport meta tag there?)", screen.name, l.InnerWidth, screen.width)
		}
		if l.ScrollWidth > l.InnerWidth {
			t.Errorf("%s: the page is %d px wide for a %d px window", screen.name, l.ScrollWidth, l.InnerWidth)
		}
		// Two prompt sets of two sessions and the overall row each, five metrics.
		if len(l.Cells) != 2*3*5 {
			t.Errorf("%s: found %d summary cells, want %d", screen.name, len(l.Cells), 2*3*5)
		}
		for _, c := range l.Cells {
			if !c.Reachable {
				t.Errorf("%s: %s of %q (%q) is off screen and its table does not scroll it into view", screen.name, c.Metric, c.Row, c.Text)
			}
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		t.Errorf("browser: %s", p)
	}
}
