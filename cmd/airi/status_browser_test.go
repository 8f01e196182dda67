package main

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/planner/openai/openaitest"
)

// TestInspectorSaysWhyAndHowInBrowser reads the inspector in headless
// Chromium: a group message that does not address the bot says on its
// timeline row that it woke nothing and why; every page carries the
// status strip (the model, the adapter, the prompts, the budget), and a
// banner while the model fails, at 1280 and at 390 px.
func TestInspectorSaysWhyAndHowInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary and a browser")
	}
	exe := chromiumPath()
	if exe == "" {
		t.Skip("chromium is not installed: the inspector's browser test needs it (.ci/run installs it)")
	}
	tg := telegramtest.Start(telegramtest.Options{ReadAllGroupMessages: true})
	defer tg.Close()
	var failing atomic.Bool
	ack := ackModel(telegramTexts(tg), nil)
	model := openaitest.NewServer(t, func(ctx context.Context, req openaitest.Request) openaitest.Reply {
		if failing.Load() {
			return openaitest.Status(503, "")
		}
		return ack(ctx, req)
	})
	env := botEnv(model.URL(), dbIn(t), "TELEGRAM_BOT_TOKEN="+tg.Token(), "TELEGRAM_API_BASE_URL="+tg.URL(),
		"AIRI_GROUP_MODE=addressed", "AIRI_BUDGET_TOKENS_DAY=1000000", "LLM_TIMEOUT=2s")

	ann := telegramtest.User{ID: 501, FirstName: "Ann"}
	bob := telegramtest.User{ID: 502, FirstName: "Bob"}
	group := telegramtest.Chat{ID: -1001234567890, Type: telegramtest.Supergroup, Title: "Harbour"}

	bot := startBot(t, env)
	base := adminAddr(t, bot)
	tg.Post(telegramtest.Incoming{Chat: group, From: bob, Text: "plain chatter among people"})
	tg.Post(telegramtest.Incoming{Chat: group, From: ann, Text: "@" + tg.Bot().Username + " and you, tok-1?"})
	waitUntil(t, "the addressed message is answered", bot, func() bool { return allAcked(ackCounts(telegramTexts(tg)()), 1) })

	b := newBrowser(t, exe)
	b.open(base+"/", "table.channels")
	href := jsEval[string](b, `[...document.querySelectorAll("tr.channel td.name a")].find(a => a.textContent === "Harbour").href`)
	b.open(href, "#timeline li.item")
	why := jsEval[string](b, `(() => {
		const row = [...document.querySelectorAll("#timeline li.item")].find(li => li.innerText.includes("plain chatter"));
		return row ? ((row.querySelector(".tag.why") || {}).textContent || "") : "no row";
	})()`)
	if why != "not woken: unaddressed" {
		t.Errorf("the unaddressed message's row says %q, want \"not woken: unaddressed\"", why)
	}
	addressed := jsEval[string](b, `(() => {
		const row = [...document.querySelectorAll("#timeline li.item")].find(li => li.innerText.includes("tok-1"));
		return row ? ((row.querySelector(".tag.why") || {}).textContent || "") : "no row";
	})()`)
	if addressed != "" {
		t.Errorf("the addressed message's row says %q", addressed)
	}
	type item struct {
		Name, Class, Text string
	}
	strip := func() map[string]item {
		items := jsEval[[]item](b, `[...document.querySelectorAll("ul.status li")].map(li => ({Name: li.dataset.name, Class: li.className, Text: li.innerText}))`)
		out := map[string]item{}
		for _, it := range items {
			out[it.Name] = it
		}
		return out
	}
	got := strip()
	for name, want := range map[string]string{"telegram": "connected", "model": "serving", "prompts": "embedded", "budget": "of 1000000 tokens today"} {
		if it := got[name]; it.Class != "ok" || !strings.Contains(it.Text, want) {
			t.Errorf("status strip %s = %+v, want ok saying %q (strip %+v)", name, it, want, got)
		}
	}
	if n := jsEval[int](b, `document.querySelectorAll(".banner").length`); n != 0 {
		t.Errorf("%d banners while the model answers", n)
	}
	b.shot("status-timeline-1280")

	// The model fails: the next page says so in a banner.
	failing.Store(true)
	tg.Post(telegramtest.Incoming{Chat: telegramtest.PrivateChat(ann), From: ann, Text: "are you there tok-2"})
	waitUntil(t, "a model call has failed", bot, func() bool { return strings.Contains(bot.stderr.String(), "model call failed") })
	for _, p := range []struct{ name, url, sel string }{
		{"channels", base + "/", "table.channels"},
		{"timeline", href, "#timeline li.item"},
		{"search", base + "/search?q=tok", "ol.results"},
	} {
		b.open(p.url, ".banner")
		if text := jsEval[string](b, `document.querySelector(".banner").innerText`); !strings.Contains(text, "The model is failing") || !strings.Contains(text, "503") {
			t.Errorf("%s: banner says %q", p.name, text)
		}
		if it := strip()["model"]; it.Class != "fail" || !strings.Contains(it.Text, "calls failing") {
			t.Errorf("%s: the strip's model item while it fails = %+v", p.name, it)
		}
		b.shot("status-" + p.name + "-failing-1280")
	}
	if err := chromedp.Do(b.ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateScale(2))); err != nil {
		t.Fatal(err)
	}
	b.open(href, ".banner")
	if w := jsEval[[]int](b, `[document.documentElement.scrollWidth, window.innerWidth]`); w[0] > w[1] {
		t.Errorf("the timeline with the banner on a phone is %d px wide for a %d px screen", w[0], w[1])
	}
	b.shot("status-timeline-failing-phone")

	// The model is back: the banner goes once a call succeeds.
	failing.Store(false)
	tg.Post(telegramtest.Incoming{Chat: telegramtest.PrivateChat(ann), From: ann, Text: "now tok-3"})
	waitUntil(t, "the model answers again", bot, func() bool { return allAcked(ackCounts(telegramTexts(tg)()), 3) })
	b.open(href, "ul.status")
	if n := jsEval[int](b, `document.querySelectorAll(".banner").length`); n != 0 {
		t.Errorf("%d banners once the model answers again", n)
	}

	bot.stop(t)
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		t.Errorf("browser: %s", p)
	}
}
