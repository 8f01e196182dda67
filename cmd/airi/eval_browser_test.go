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
