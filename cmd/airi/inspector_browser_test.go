package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner/openai/openaitest"
)

// chromiumPath finds a Chromium to drive, or "".
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// adminAddr reads the admin server's address from the bot's JSON log.
func adminAddr(t *testing.T, p *botProcess) string {
	t.Helper()
	var addr string
	waitUntil(t, "the admin server is listening", p, func() bool {
		sc := bufio.NewScanner(strings.NewReader(p.stderr.String()))
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			var line struct {
				Msg   string `json:"msg"`
				Admin string `json:"admin"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "airi is running" {
				addr = line.Admin
				return true
			}
		}
		return false
	})
	return "http://" + addr
}

// browser is a headless Chromium tab that records every console error,
// uncaught exception, browser log error and JavaScript dialog.
type browser struct {
	t     *testing.T
	ctx   context.Context
	shots string

	mu       sync.Mutex
	problems []string
	dialogs  chan string
}

func newBrowser(t *testing.T, exe string) *browser {
	t.Helper()
	profile, err := os.MkdirTemp("", "airi-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.UserDataDir(profile), chromedp.WindowSize(1280, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 3*time.Minute)
	b := &browser{t: t, ctx: ctx, dialogs: make(chan string, 16)}
	b.shots = os.Getenv("AIRI_TEST_SCREENSHOTS")
	if b.shots == "" {
		b.shots = filepath.Join(t.TempDir(), "screenshots")
	}
	if err := os.MkdirAll(b.shots, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", b.shots)
	if err := chromedp.Listen(ctx, b.observe); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	// A dialog stops the page until it is answered: dismiss each one here,
	// outside the event loop, and keep it as a problem.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case <-b.dialogs:
				_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
			}
		}
	}()
	t.Cleanup(func() {
		cancelTime()
		cancelTab()
		cancelAlloc()
		wg.Wait()
		_ = os.RemoveAll(profile) // Chromium's helpers may still be writing; a leftover is harmless
	})
	return b
}

func (b *browser) problem(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.problems = append(b.problems, fmt.Sprintf(format, args...))
}

func (b *browser) observe(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			b.problem("console.%s: %s", ev.Type, strings.Join(args, " "))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		desc := d.Text
		if d.Exception != nil {
			desc += " " + d.Exception.Description
		}
		b.problem("exception at %s:%d: %s", d.URL, d.LineNumber, desc)
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.EntryLevelError {
			b.problem("browser log: %s (%s)", ev.Entry.Text, ev.Entry.URL)
		}
	case *page.EventJavascriptDialogOpening:
		b.problem("a %s dialog opened: %q", ev.Type, ev.Message)
		select {
		case b.dialogs <- ev.Message:
		default:
		}
	}
}

// open loads a page and waits for sel to be visible.
func (b *browser) open(url, sel string) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
		b.t.Fatalf("open %s (waiting for %s): %v", url, sel, err)
	}
}

func jsEval[T any](b *browser, js string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

func (b *browser) location() string {
	b.t.Helper()
	loc, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		b.t.Fatal(err)
	}
	return loc
}

// shot saves a full-page screenshot.
func (b *browser) shot(name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(b.shots, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// TestInspectorInBrowser runs the bot against the Bot API fake in two
// chats, then reads the inspector in headless Chromium as an operator
// would: the channels, both timelines, a tick and the steps to the
// channel's last one, search, live updates, and a phone-sized screen.
// Chat text that looks like markup stays text everywhere.
func TestInspectorInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary and a browser")
	}
	exe := chromiumPath()
	if exe == "" {
		t.Skip("chromium is not installed: the inspector's browser test needs it (.ci/run installs it)")
	}
	tg := telegramtest.Start(telegramtest.Options{ReadAllGroupMessages: true})
	defer tg.Close()
	model := openaitest.NewServer(t, ackModel(telegramTexts(tg), nil))
	const token = "inspect-me"
	env := botEnv(model.URL(), dbIn(t), "TELEGRAM_BOT_TOKEN="+tg.Token(), "TELEGRAM_API_BASE_URL="+tg.URL(), "AIRI_ADMIN_TOKEN="+token)

	ann := telegramtest.User{ID: 501, FirstName: "Ann", Username: "ann"}
	bob := telegramtest.User{ID: 502, FirstName: "Bob"}
	direct := telegramtest.PrivateChat(ann)
	group := telegramtest.Chat{ID: -1001234567890, Type: telegramtest.Supergroup, Title: "Harbour"}
	const markup = `<img src=x onerror=alert(1)>`

	bot := startBot(t, env)
	base := adminAddr(t, bot)
	tg.Post(telegramtest.Incoming{Chat: direct, From: ann, Text: "hello tok-1"})
	tg.Post(telegramtest.Incoming{Chat: group, From: bob, Text: fmt.Sprintf("@%s look tok-2 %s", tg.Bot().Username, markup)})
	waitUntil(t, "both chats are answered", bot, func() bool { return allAcked(ackCounts(telegramTexts(tg)()), 2) })
	tg.Post(telegramtest.Incoming{Chat: direct, From: ann, Text: "and then tok-3"})
	waitUntil(t, "the second message is answered", bot, func() bool { return allAcked(ackCounts(telegramTexts(tg)()), 3) })

	b := newBrowser(t, exe)

	// The token in the address is traded for a cookie and leaves the URL.
	b.open(base+"/?token="+token, "table.channels")
	if loc := b.location(); loc != base+"/" {
		t.Errorf("after signing in by address the page is %s, want %s", loc, base+"/")
	}
	type channelRow struct {
		Title, Href, LastTick string
	}
	rows := jsEval[[]channelRow](b, `[...document.querySelectorAll("tr.channel")].map(r => ({
		Title: r.querySelector("td.name a").textContent,
		Href: r.querySelector("td.name a").href,
		LastTick: (r.querySelector('td[data-label="Last tick"] a') || {}).href || ""}))`)
	byTitle := map[string]channelRow{}
	for _, r := range rows {
		byTitle[r.Title] = r
	}
	if len(rows) != 2 || byTitle["Harbour"].Href == "" || byTitle["Ann"].Href == "" {
		t.Fatalf("channels page lists %+v, want the group Harbour and the direct chat with Ann", rows)
	}
	b.shot("channels-1280")

	// Both timelines; the user's text is there, markup stays text.
	b.open(byTitle["Ann"].Href, "#timeline li.item")
	if text := jsEval[string](b, `document.getElementById("timeline").innerText`); !strings.Contains(text, "hello tok-1") || !strings.Contains(text, "got 1") {
		t.Errorf("direct timeline lacks the message or the reply:\n%s", text)
	}
	b.shot("timeline-direct-1280")
	// The time column never wraps: every time is one line high.
	if h := jsEval[[]float64](b, `[...document.querySelectorAll("time.t")].map(e => e.getBoundingClientRect().height)`); len(h) == 0 || slicesMax(h) > 24 {
		t.Errorf("time column heights %v: a time wraps", h)
	}
	if iv := jsEval[int](b, `parseInt(document.getElementById("timeline").dataset.interval, 10)`); iv < 1000 {
		t.Errorf("live timeline polls every %d ms, want at least a second", iv)
	}
	b.open(byTitle["Harbour"].Href, "#timeline li.item")
	if text := jsEval[string](b, `document.getElementById("timeline").innerText`); !strings.Contains(text, markup) {
		t.Errorf("group timeline does not show %s as text:\n%s", markup, text)
	}
	if n := jsEval[int](b, `document.querySelectorAll("img").length`); n != 0 {
		t.Errorf("group timeline holds %d img elements: chat text became markup", n)
	}
	b.shot("timeline-group-1280")

	// The first tick of the direct chat: action at the top, the request's
	// layers and sections below; "next" leads to the channel's last tick.
	b.open(byTitle["Ann"].Href, "#timeline a.tid")
	ticks := jsEval[[]string](b, `[...document.querySelectorAll("#timeline a.tid")].map(a => a.href)`)
	b.open(ticks[len(ticks)-1], "#summary")
	if act := jsEval[string](b, `(document.querySelector("#summary #action") || {}).textContent || ""`); act == "" {
		t.Error("the tick page shows no action in its summary")
	}
	if !jsEval[bool](b, `!!(document.getElementById("summary").compareDocumentPosition(document.getElementById("request")) & Node.DOCUMENT_POSITION_FOLLOWING)`) {
		t.Error("the request is not below the summary")
	}
	if n := jsEval[int](b, `document.querySelectorAll("#request details.layer").length`); n < 2 {
		t.Errorf("the request shows %d layers, want system and state at least", n)
	}
	if n := jsEval[int](b, `document.querySelectorAll("#request details.section").length`); n < 2 {
		t.Errorf("the request shows %d sections", n)
	}
	b.shot("tick-first-1280")
	for steps := 0; ; steps++ {
		if steps > 50 {
			t.Fatal("following next never ends")
		}
		if !jsEval[bool](b, `!!document.querySelector('nav.steps a[rel="next"]')`) {
			break
		}
		if _, err := chromedp.RunResponse(b.ctx, chromedp.Click(chromedp.CSS(`nav.steps a[rel="next"]`))); err != nil {
			t.Fatalf("follow next: %v", err)
		}
	}
	if loc := b.location(); loc != byTitle["Ann"].LastTick {
		t.Errorf("following next ends at %s, want the channel's last tick %s", loc, byTitle["Ann"].LastTick)
	}
	if n := jsEval[int](b, `document.querySelectorAll("#diff pre.udiff span.add").length`); n == 0 {
		t.Error("the last tick shows no change against the previous one")
	}
	b.shot("tick-last-1280")

	// Search by text across channels, and by tick id.
	b.open(base+"/search?q=onerror", "ol.results li.item")
	if text := jsEval[string](b, `document.querySelector("ol.results").innerText`); !strings.Contains(text, markup) || !strings.Contains(text, "Harbour") {
		t.Errorf("search results lack the message as text:\n%s", text)
	}
	b.shot("search-1280")
	b.open(base+"/search?outcome=sent", "ol.results li.item")
	b.open(base+"/search?q=%23"+ticks[0][strings.LastIndex(ticks[0], "/")+1:], "#summary")
	if loc := b.location(); loc != ticks[0] {
		t.Errorf("searching a tick id leads to %s, want %s", loc, ticks[0])
	}

	// Live mode: a new message appears without a reload.
	b.open(byTitle["Ann"].Href, "#timeline li.item")
	jsEval[bool](b, `window.stayed = true`)
	tg.Post(telegramtest.Incoming{Chat: direct, From: ann, Text: "live tok-4"})
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](`document.getElementById("timeline").innerText.includes("got 4")`, chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		t.Fatalf("the live timeline never showed the new reply: %v", err)
	}
	if !jsEval[bool](b, `window.stayed === true`) {
		t.Error("the page reloaded instead of appending")
	}
	b.shot("timeline-live-1280")

	// A phone: nothing is wider than the screen.
	if err := chromedp.Do(b.ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateScale(2))); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ name, url, sel string }{
		{"channels", base + "/", "table.channels"},
		{"timeline-group", byTitle["Harbour"].Href, "#timeline li.item"},
		{"tick", byTitle["Ann"].LastTick, "#summary"},
		{"search", base + "/search?q=tok", "ol.results"},
	} {
		b.open(p.url, p.sel)
		if w := jsEval[[]int](b, `[document.documentElement.scrollWidth, window.innerWidth]`); w[0] > w[1] {
			t.Errorf("%s on a phone is %d px wide for a %d px screen", p.name, w[0], w[1])
		}
		b.shot(p.name + "-phone")
	}

	bot.stop(t)
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		t.Errorf("browser: %s", p)
	}
}

func slicesMax(v []float64) float64 {
	m := v[0]
	for _, x := range v[1:] {
		m = max(m, x)
	}
	return m
}
