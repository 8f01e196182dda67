package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/adapters/console"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/runtime/runtimetest"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
	"github.com/airi-go/airi/tools"
)

var recordFlag = flag.Bool("record", false, "record the shipped sessions in testdata/sessions (and the demo's copy) anew")

// sessionsDir holds the shipped sessions, relative to this package.
const sessionsDir = "../../testdata/sessions"

// recClock is the recorder's clock: it moves only when the script moves
// it, so a recorded session comes out the same every time.
type recClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *recClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *recClock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

func (c *recClock) add(d time.Duration) { c.set(c.Now().Add(d)) }

// scriptLine is a chat message in a script.
type scriptLine struct {
	after   time.Duration // after the previous line, or after the call started
	from    string
	text    string
	replyTo string
	mention bool
	// media are the message's attachments; the recorder's adapter serves
	// each file's id as its bytes.
	media []state.Media
}

// scriptStep is one scripted model call.
type scriptStep struct {
	answer  string
	latency time.Duration
	// during are messages that arrive while the call is in flight.
	during []scriptLine
	// interrupt: the call waits until the runtime cancels it.
	interrupt bool
	err       error
}

// scriptedModel is a model that answers from a script, delivering the
// messages that arrive during a call on the recorder's clock.
type scriptedModel struct {
	t       testing.TB
	clock   *recClock
	steps   []scriptStep
	i       int
	deliver func(l scriptLine)
}

func (m *scriptedModel) Complete(ctx context.Context, req planner.Request) (planner.Response, error) {
	if m.i >= len(m.steps) {
		m.t.Errorf("model called %d times, the script has %d answers", m.i+1, len(m.steps))
		return planner.Response{}, fmt.Errorf("script ended")
	}
	st := m.steps[m.i]
	m.i++
	start := m.clock.Now()
	at := start
	for _, l := range st.during {
		at = at.Add(l.after)
		m.clock.set(at)
		m.deliver(l)
	}
	if st.interrupt {
		// Bounded, so that a runtime that stopped interrupting fails the
		// recording instead of hanging it.
		t := time.NewTimer(10 * time.Second)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return planner.Response{}, ctx.Err()
		case <-t.C:
			m.t.Errorf("step %d: the runtime did not cancel the call when a message arrived", m.i)
			return planner.Response{}, errors.New("not interrupted")
		}
	}
	m.clock.set(start.Add(st.latency))
	if st.err != nil {
		return planner.Response{Latency: st.latency}, st.err
	}
	chars := 0
	for _, msg := range req.Messages {
		chars += len(msg.Content)
	}
	return planner.Response{
		Content: st.answer, Latency: st.latency, Attempts: 1,
		Usage: state.Usage{PromptTokens: chars / 4, CompletionTokens: len(st.answer)/4 + 1},
	}, nil
}

// idAdapter stands for a platform adapter: it numbers what it sends and
// fails the sends it is told to.
type idAdapter struct {
	name string
	next int
	fail []error // the n-th send fails with fail[n] when set
	sent int
}

func (a *idAdapter) Name() string { return a.name }

func (a *idAdapter) Send(_ context.Context, _ state.Outgoing) (string, error) {
	a.sent++
	if a.sent <= len(a.fail) && a.fail[a.sent-1] != nil {
		return "", a.fail[a.sent-1]
	}
	a.next++
	return strconv.Itoa(a.next), nil
}

// recording is one scripted conversation run through the real runtime.
type recording struct {
	t       testing.TB
	ctx     context.Context
	clock   *recClock
	rt      *runtime.Bot
	store   *sqlite.Store
	cfg     runtime.Config
	channel state.Channel
	model   *scriptedModel
	ids     int
	idBase  int
	sc      sessionScript
	dbPath  string
	log     *zap.Logger
	adapter *idAdapter
}

// sessionScript describes a recorded session.
type sessionScript struct {
	file    string
	channel state.Channel
	start   time.Time
	steps   []scriptStep
	// firstID numbers incoming platform message ids (console ids are made
	// like the console adapter makes them).
	firstID int
	// sendErrors fail the adapter's first sends.
	sendErrors []error
	// turn is the turn semantics recorded under (empty: the runtime's).
	// The sessions recorded before a send ended the turn keep theirs, so
	// that they go on showing that older sessions replay.
	turn scheduler.Turn
	// attention is the group mode recorded under (empty: the runtime's
	// default), written into the header unless it is "all". The sessions
	// recorded before attention policies keep "all", so that they go on
	// showing that older sessions replay.
	attention attention.Mode
	// seen, when set, is what the vision model says of every image and
	// heard what the speech model hears in every voice note.
	seen, heard string
	// tools, when set, is an MCP server the recorder serves over
	// streamable HTTP on 127.0.0.1 as the bot's tool server "weather".
	tools func() *mcp.Server
	play  func(r *recording)
}

// scriptedEyes is a vision model that says the same of every image.
type scriptedEyes struct{ seen string }

func (e scriptedEyes) Complete(_ context.Context, req planner.Request) (planner.Response, error) {
	return planner.Response{Content: e.seen, Attempts: 1, Usage: state.Usage{PromptTokens: 850, CompletionTokens: len(e.seen) / 4}}, nil
}

// scriptedEars is a speech model that hears the same in every voice note.
type scriptedEars struct{ heard string }

func (e scriptedEars) Transcribe(context.Context, []byte, string) (string, error) {
	return e.heard, nil
}

// FetchMedia serves a file's id as its bytes.
func (a *idAdapter) FetchMedia(_ context.Context, m state.Media, thumb bool, _ int64) ([]byte, string, error) {
	if thumb {
		return []byte(m.Thumb), "image/jpeg", nil
	}
	return []byte(m.FileID), m.Mime, nil
}

func (sc sessionScript) record(t testing.TB, dbPath string) *recording {
	t.Helper()
	ctx := context.Background()
	// The default settings, without the pause between calls.
	cfg := runtime.Defaults()
	cfg.ContinueDelay = 0
	cfg.Turn = sc.turn
	if sc.attention != "" {
		cfg.Attention.Default.Mode = sc.attention
	}
	log := zap.NewNop()
	if tl, ok := t.(*testing.T); ok {
		log = zaptest.NewLogger(tl, zaptest.Level(zap.WarnLevel))
	}
	if sc.tools != nil {
		server := sc.tools()
		srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
		t.Cleanup(srv.Close)
		cfg.Tools = tools.Config{Servers: []tools.Server{{Name: "weather", URL: srv.URL}}}
	}
	clock := &recClock{t: sc.start}
	r := &recording{t: t, ctx: ctx, clock: clock, cfg: cfg, channel: sc.channel, idBase: sc.firstID, sc: sc, dbPath: dbPath, log: log}
	r.model = &scriptedModel{t: t, clock: clock, steps: sc.steps, deliver: r.deliver}
	r.adapter = &idAdapter{name: sc.channel.Platform, next: sc.firstID + 400, fail: sc.sendErrors}
	r.open()
	sc.play(r)
	if r.model.i != len(sc.steps) {
		t.Errorf("%s: the script has %d answers, %d were used", sc.file, len(sc.steps), r.model.i)
	}
	return r
}

// open starts the bot on the recording's database.
func (r *recording) open() {
	t, sc, log, clock, cfg := r.t, r.sc, r.log, r.clock, r.cfg
	store, err := sqlite.Open(r.ctx, r.dbPath, log)
	if err != nil {
		t.Fatal(err)
	}
	r.store = store
	p, err := prompts.Load(cfg.PromptsDir, log)
	if err != nil {
		t.Fatal(err)
	}
	var ad runtime.Sender = r.adapter
	if sc.channel.Platform == console.Name {
		ad = console.New(console.Config{ChannelID: sc.channel.ID, BotName: runtime.BotName(cfg.BotName, p), Now: clock.Now}, strings.NewReader(""), &bytes.Buffer{}, log)
	}
	deps := runtime.Deps{Logger: log,
		Model: r.model, Store: store, Prompts: p, Adapters: []runtime.Adapter{{Sender: ad}}, Now: clock.Now,
		// The continue delay, on the recorder's clock.
		OnTick: func(state.Tick) { clock.add(time.Second) },
	}
	if sc.seen != "" {
		deps.Vision = scriptedEyes{seen: sc.seen}
	}
	if sc.heard != "" {
		deps.Speech = scriptedEars{heard: sc.heard}
	}
	rt, err := runtime.New(cfg, deps)
	if err != nil {
		t.Fatal(err)
	}
	r.rt = rt
	if sc.tools != nil {
		waitForTools(t, rt.Tools())
	}
}

// restart stops the bot and starts it again on the same database, as a
// process restart would (the recorder's adapter keeps numbering sends).
func (r *recording) restart() {
	r.close()
	r.open()
}

func (r *recording) close() { _ = r.rt.Close(context.Background()) }

// waitForTools starts the bot's tool servers and waits until every one
// has listed its tools.
func waitForTools(t testing.TB, m *tools.Manager) {
	t.Helper()
	m.Start(context.Background())
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for {
		changed := m.Changed()
		if m.Connected("weather") && len(m.Catalog()) > 0 {
			return
		}
		select {
		case <-changed:
		case <-timeout.C:
			t.Fatal("the tool server never listed its tools")
		}
	}
}

// weatherServer is the tool server of tools.jsonl: an MCP server of the
// official SDK with a forecast and a tide table that knows two gauges.
func weatherServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1"}, nil)
	type forecastIn struct {
		Place string `json:"place" jsonschema:"where: harbour, pier or point"`
		Hour  string `json:"hour,omitempty" jsonschema:"HH:MM, local time; absent for the next hours"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "forecast", Description: "The coast weather forecast for a place near the harbour."},
		func(_ context.Context, _ *mcp.CallToolRequest, in forecastIn) (*mcp.CallToolResult, any, error) {
			text := fmt.Sprintf("%s: fog thinning after 23:40, clear by 00:30; wind NW 3; 9°C", in.Place)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	type tidesIn struct {
		Gauge string `json:"gauge" jsonschema:"the tide gauge"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "tides", Description: "Tonight's high and low water at a tide gauge."},
		func(_ context.Context, _ *mcp.CallToolRequest, in tidesIn) (*mcp.CallToolResult, any, error) {
			if in.Gauge != "north-quay" && in.Gauge != "harbour-mouth" {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
					Text: fmt.Sprintf("no gauge named %q; gauges: harbour-mouth, north-quay", in.Gauge)}}}, nil, nil
			}
			text := fmt.Sprintf("%s: high water 02:14 (4.1 m), low water 08:31 (0.6 m)", in.Gauge)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	return srv
}

// deliver hands a message to the runtime as its adapter would.
func (r *recording) deliver(l scriptLine) {
	r.ids++
	id := strconv.Itoa(r.idBase + r.ids)
	now := r.clock.Now()
	if r.channel.Platform == console.Name {
		id = fmt.Sprintf("console-%d-%d", now.UnixNano(), r.ids)
	}
	msg := state.Message{
		PlatformID: id, SenderID: strings.ToLower(l.from), SenderName: l.from, Content: l.text,
		ReplyTo: l.replyTo, Mentioned: l.mention, Time: now, Media: l.media,
	}
	ch := r.channel
	if err := r.rt.Inbox(ch.Platform).Deliver(r.ctx, ch, msg); err != nil {
		r.t.Fatal(err)
	}
}

// say lets time pass and delivers messages.
func (r *recording) say(lines ...scriptLine) {
	for _, l := range lines {
		r.clock.add(l.after)
		r.deliver(l)
	}
}

// wake runs one wake after the debounce, as the loop would.
func (r *recording) wake(trigger scheduler.Trigger) {
	r.clock.add(r.cfg.Debounce)
	r.rt.Scheduler().Wake(r.ctx, r.channel.ID, trigger)
}

// export writes the recorded sessions as airi ticks export does.
func (r *recording) export() []byte {
	var b bytes.Buffer
	if _, err := runtime.ExportSessions(r.ctx, r.store, r.cfg, state.TickFilter{}, &b); err != nil {
		r.t.Fatal(err)
	}
	return b.Bytes()
}

const continueAnswer = `{"action":"continue"}`

func millis(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// sessionScripts are the shipped sessions; direct-chat.jsonl is also the demo.
func sessionScripts() []sessionScript {
	day := time.Date(2026, 3, 14, 21, 40, 0, 0, time.UTC)
	con := state.Channel{ID: "console", Platform: console.Name, Title: "terminal chat with you"}
	group := state.Channel{ID: "-1001234567890", Platform: "telegram", Group: true, Title: "Night Owls"}
	return []sessionScript{
		{
			file: "direct-chat.jsonl", attention: attention.ModeAll, channel: con, start: day,
			steps: []scriptStep{
				// A send ends the turn: one call per reply.
				{answer: runtimetest.SendAnswer("console", "on shift, kettle on. quiet so far, just the 22:00 ferry to check in. you?"), latency: millis(1400)},
				// Asking for more with "then": "next", then ending the turn.
				{answer: `{"action":"send_message","parameters":{"channelId":"console","content":"clear till midnight, then fog off the point. two moths on the antenna mast, which is a lot for march.","then":"next"},"reasoning":"they asked about the logbook; tonight's entry is short"}`, latency: millis(1900)},
				{answer: continueAnswer, latency: millis(500)},
				{answer: runtimetest.SendAnswer("console", "assam, strong enough to stand a spoon in. no sugar, obviously."), latency: millis(1200)},
				{answer: runtimetest.SendAnswer("console", "night. I'll log you as a clear sky."), latency: millis(1100)},
			},
			play: func(r *recording) {
				r.say(scriptLine{from: "you", text: "hey juni, you on shift tonight?"})
				r.wake("message")
				r.say(scriptLine{after: 40 * time.Second, from: "you", text: "same, can't sleep. what's in the logbook?"})
				r.wake("message")
				r.say(scriptLine{after: 35 * time.Second, from: "you", text: "what tea are you on?"})
				r.wake("message")
				r.say(scriptLine{after: 2 * time.Minute, from: "you", text: "ok good night juni"})
				r.wake("message")
			},
		},
		{
			file: "group-burst.jsonl", attention: attention.ModeAll, channel: group, start: day.Add(time.Hour), firstID: 100,
			steps: []scriptStep{
				{answer: `{"action":"send_message","channelId":"-1001234567890","content":"saw it. kp 5 after midnight, north of the harbour if the fog holds off. tomas, the printer can wait.","replyTo":"103"}`, latency: millis(2100)},
				{answer: continueAnswer, latency: millis(650)},
				{answer: runtimetest.SendAnswer("-1001234567890", "fog? the date, the time, and \"fog\". the log has been saying fog since tuesday."), latency: millis(1500)},
			},
			play: func(r *recording) {
				// A burst read together: four messages inside the debounce.
				r.say(
					scriptLine{from: "Mika", text: "anyone awake?"},
					scriptLine{after: millis(300), from: "Tomas", text: "me, fighting a printer"},
					scriptLine{after: millis(500), from: "Ana", text: "@juni_bot did you see the aurora forecast?", mention: true},
					scriptLine{after: millis(400), from: "Mika", text: "aurora?? where"},
				)
				r.wake("message")
				// Talk among others: read, not answered.
				r.say(
					scriptLine{after: 2 * time.Minute, from: "Tomas", text: "printer won, as usual"},
					scriptLine{after: millis(600), from: "Mika", text: "lol"},
				)
				r.wake("message")
				r.say(scriptLine{after: time.Minute, from: "Ana", text: "juni what do you write in the log when it's foggy?"})
				r.wake("message")
			},
		},
		{
			file: "malformed-answers.jsonl", attention: attention.ModeAll, turn: scheduler.TurnContinue, start: day.Add(2 * time.Hour), firstID: 7000,
			channel: state.Channel{ID: "4417", Platform: "satori", Title: "Lin"},
			steps: []scriptStep{
				{answer: "```json\n{\"action\": \"send_message\", \"channelId\": \"4417\", \"content\": \"bulletin says showers after ten, clearing by evening\",}\n```", latency: millis(1700)},
				{answer: "<think>answered the rain question. nothing else to do.</think>\n{'action': 'continue'}", latency: millis(900)},
				{answer: "Sure! The wind will be strong tomorrow, so take care.", latency: millis(800)},
				{answer: `{"name": "send_message", "arguments": "{\"channelId\": \"4417\", \"content\": \"westerly, force 5 gusting 6. hold on to your hat.\"}"}`, latency: millis(1300)},
				{answer: "{action: continue} // done here", latency: millis(500)},
				{answer: `{"action":"wave","channelId":"4417"}`, latency: millis(600)},
				{answer: runtimetest.SendAnswer("4417", "any time. stay dry."), latency: millis(900)},
				{answer: `{"action":"continue"`, latency: millis(400)},
			},
			play: func(r *recording) {
				r.say(scriptLine{from: "Lin", text: "juni, quick: rain at the harbour tomorrow?"})
				r.wake("message")
				r.say(scriptLine{after: time.Minute, from: "Lin", text: "and the wind?"})
				r.wake("message")
				r.say(scriptLine{after: time.Minute, from: "Lin", text: "thanks!"})
				r.wake("message")
			},
		},
		{
			file: "aborted-send.jsonl", attention: attention.ModeAll, turn: scheduler.TurnContinue, start: day.Add(3 * time.Hour), firstID: 300,
			channel: state.Channel{ID: "412345678", Platform: "telegram", Title: "Rui"},
			steps: []scriptStep{
				// Rui's second message cancels the first call; the wake plans again with both.
				{interrupt: true, during: []scriptLine{{after: millis(800), from: "Rui", text: "are you there"}}},
				// The third arrives while the model decides: the send is held back.
				{answer: runtimetest.SendAnswer("412345678", "here. what's up?"), latency: millis(1500),
					during: []scriptLine{{after: millis(900), from: "Rui", text: "need the first ferry time for tomorrow"}}},
				{answer: runtimetest.SendAnswer("412345678", "first boat out is 06:10, then every 40 minutes till noon."), latency: millis(1600)},
				{answer: continueAnswer, latency: millis(500)},
			},
			play: func(r *recording) {
				r.say(scriptLine{from: "Rui", text: "juni"})
				r.wake("message")
			},
		},
		{
			file: "sleep-woken.jsonl", attention: attention.ModeAll, turn: scheduler.TurnContinue, start: day.Add(4 * time.Hour), firstID: 0,
			channel: state.Channel{ID: "console", Platform: console.Name, Title: "terminal chat with sam"},
			steps: []scriptStep{
				{answer: runtimetest.SendAnswer("console", "go, I'll keep the kettle warm."), latency: millis(1200)},
				{answer: `{"action":"sleep","duration":600000}`, latency: millis(700)},
				{answer: runtimetest.SendAnswer("console", "it did: 22:04, four minutes late, nobody overboard."), latency: millis(1400)},
				{answer: `{"action":"sleep","duration":120000}`, latency: millis(600)},
				{answer: continueAnswer, latency: millis(500)},
			},
			play: func(r *recording) {
				r.say(scriptLine{from: "sam", text: "gotta step out for a bit, back soon"})
				r.wake("message")
				// The sleep is cut short by a message three minutes in.
				r.say(scriptLine{after: 3 * time.Minute, from: "sam", text: "back! did the ferry check in?"})
				r.wake("message")
				// This sleep runs out with nothing new.
				r.clock.add(2 * time.Minute)
				r.rt.Scheduler().Wake(r.ctx, r.channel.ID, "sleep")
			},
		},
		{
			file: "memory.jsonl", attention: attention.ModeAll, start: day.Add(6 * time.Hour), firstID: 600,
			channel: state.Channel{ID: "512345678", Platform: "telegram", Title: "Ada"},
			steps: []scriptStep{
				// A fact worth keeping: remembered, then the reply.
				{answer: `{"action":"remember","scope":"user","content":"Ada is vegetarian: no fish suppers"}`, latency: millis(1100)},
				{answer: runtimetest.SendAnswer("512345678", "noted. no fish suppers, then."), latency: millis(1200)},
				{answer: `{"action":"remember","scope":"user","content":"Ada's cat is called Biscuit","shareable":true}`, latency: millis(900)},
				{answer: runtimetest.SendAnswer("512345678", "Biscuit. a proper harbour-cat name."), latency: millis(1000)},
				// The fact changed: the note is rewritten by its id.
				{answer: `{"action":"remember","scope":"user","content":"Ada is vegan: no fish, no dairy","id":"1"}`, latency: millis(1000)},
				{answer: runtimetest.SendAnswer("512345678", "vegan, logged. oat milk in the tea from now on."), latency: millis(1300)},
				// Asked to forget: the note goes.
				{answer: `{"action":"forget","id":"2"}`, latency: millis(700)},
				{answer: runtimetest.SendAnswer("512345678", "gone. who's Biscuit?"), latency: millis(900)},
			},
			play: func(r *recording) {
				r.say(scriptLine{from: "Ada", text: "juni, for your logbook: I'm vegetarian, so no fish suppers for me"})
				r.wake("message")
				r.say(scriptLine{after: time.Minute, from: "Ada", text: "and my cat is called Biscuit, tell anyone you like"})
				r.wake("message")
				r.say(scriptLine{after: 10 * time.Minute, from: "Ada", text: "update: I'm vegan now"})
				r.wake("message")
				r.say(scriptLine{after: 2 * time.Minute, from: "Ada", text: "actually, forget the cat thing"})
				r.wake("message")
			},
		},
		{
			file: "outages.jsonl", attention: attention.ModeAll, turn: scheduler.TurnContinue, start: day.Add(5 * time.Hour), firstID: 900,
			channel:    state.Channel{ID: "88231", Platform: "satori", Group: true, Title: "harbour radio club"},
			sendErrors: []error{errors.New("satori: message.create: 502 Bad Gateway")},
			steps: []scriptStep{
				{err: errors.New("chat completion: 503 Service Unavailable after 3 attempts"), latency: 3 * time.Second},
				// The platform refuses the send; the model sees why and sends again.
				{answer: `{"action":"send_message","channelId":"88231","content":"not yet. it goes out at 23:05 most nights.","replyTo":"901"}`, latency: millis(1800)},
				{answer: `{"action":"send_message","channelId":"88231","content":"not yet. it goes out at 23:05 most nights; I'll post it when it lands.","replyTo":"901"}`, latency: millis(1600)},
				{answer: continueAnswer, latency: millis(500)},
			},
			play: func(r *recording) {
				r.say(scriptLine{from: "Bo", text: "juni, is the 23:00 bulletin out yet?"})
				r.wake("message")
				// The failed call leaves the message unread; the loop retries.
				r.clock.add(5 * time.Second)
				r.rt.Scheduler().Wake(r.ctx, r.channel.ID, "retry")
			},
		},
		{
			// Recorded under the default group mode: the header names it
			// and each event carries the decision it got.
			file: "group-addressed.jsonl", channel: group, start: day.Add(6 * time.Hour), firstID: 1200,
			steps: []scriptStep{
				{answer: `{"action":"send_message","channelId":"-1001234567890","content":"on from 23:30, fog's rolling in. earplugs are in the top drawer.","replyTo":"1203"}`, latency: millis(1700)},
			},
			play: func(r *recording) {
				// Talk among others wakes nothing; the mention does.
				r.say(
					scriptLine{from: "Mika", text: "is it me or is it getting misty"},
					scriptLine{after: 20 * time.Second, from: "Tomas", text: "very misty. can't see the pier"},
					scriptLine{after: 15 * time.Second, from: "Ana", text: "@juni_bot is the fog horn on tonight?", mention: true},
				)
				r.wake("addressed:mention")
			},
		},
		{
			// A photo described once by the vision model and a voice
			// note transcribed once: the session keeps the description
			// and the transcript, so it replays without either model.
			file: "media.jsonl", attention: attention.ModeAll, start: day.Add(7 * time.Hour), firstID: 1300,
			channel: state.Channel{ID: "512345678", Platform: "telegram", Title: "Ada"},
			seen:    "A ginger cat curled up asleep inside an open cardboard box on a wooden floor.",
			heard:   "are you coming to the pier tonight? bring the red torch",
			steps: []scriptStep{
				{answer: runtimetest.SendAnswer("512345678", "Biscuit has found the best box in the house. no moving it now."), latency: millis(1300)},
				{answer: runtimetest.SendAnswer("512345678", "on my way after the 22:00 ferry. red torch packed."), latency: millis(1100)},
			},
			play: func(r *recording) {
				r.say(scriptLine{from: "Ada", text: "guess who found the new box", media: []state.Media{
					{Kind: state.MediaPhoto, FileID: "photo-biscuit-box", UniqueID: "AQADbiscuitbox", Mime: "image/jpeg", Width: 1280, Height: 960, Size: 17}}})
				r.wake("message")
				r.say(scriptLine{after: 3 * time.Minute, from: "Ada", media: []state.Media{
					{Kind: state.MediaVoice, FileID: "voice-pier", UniqueID: "AwADvoicepier", Mime: "audio/ogg", Duration: 6, Size: 10}}})
				r.wake("message")
			},
		},
		{
			// A reminder set in a direct chat. The bot is down when it
			// falls due and sends it on start, late and saying so; the
			// message that came while it was down wakes it (trigger
			// restart), and the reminder's delivery is replayed on the
			// recorded clock.
			file: "reminder.jsonl", start: day.Add(8 * time.Hour), firstID: 1400,
			channel: state.Channel{ID: "512345678", Platform: "telegram", Title: "Ada"},
			steps: []scriptStep{
				{answer: `{"action":"schedule","channelId":"512345678","content":"call the vet about Biscuit's jab","at":"2026-03-15 09:00"}`, latency: millis(1200)},
				{answer: runtimetest.SendAnswer("512345678", "done: I'll remind you at 09:00 to call the vet."), latency: millis(900)},
				{answer: runtimetest.SendAnswer("512345678", "sorry, I was offline at 9. the reminder went out just now: call the vet about Biscuit's jab."), latency: millis(1100)},
			},
			play: func(r *recording) {
				r.say(scriptLine{from: "Ada", text: "remind me at 9 to call the vet about Biscuit's jab"})
				r.wake("message")
				// Down from here until 09:12; Ada writes at 09:05 and
				// the platform hands the message over on start.
				r.clock.set(time.Date(2026, 3, 15, 9, 5, 0, 0, time.UTC))
				r.restart()
				r.deliver(scriptLine{from: "Ada", text: "juni? it's past 9"})
				r.clock.set(time.Date(2026, 3, 15, 9, 12, 0, 0, time.UTC))
				if _, err := r.rt.Reminders().Step(r.ctx); err != nil {
					r.t.Fatal(err)
				}
				r.wake("restart")
			},
		},
		{
			// Ada reacts to the bot's answer: the reaction is an event
			// line that wakes nothing, and the next request, woken by
			// Bo's mention, shows it once.
			file: "reactions.jsonl", channel: group, start: day.Add(9 * time.Hour), firstID: 1500,
			steps: []scriptStep{
				{answer: `{"action":"send_message","channelId":"-1001234567890","content":"the pier at half past one. bring the red torch.","replyTo":"1501"}`, latency: millis(1400)},
				{answer: `{"action":"send_message","channelId":"-1001234567890","content":"north-east, low over the water. give your eyes twenty minutes.","replyTo":"1502"}`, latency: millis(1200)},
			},
			play: func(r *recording) {
				r.say(scriptLine{from: "Ada", text: "@juni_bot where do we meet for the meteors?", mention: true})
				r.wake("addressed:mention")
				r.clock.add(time.Minute)
				react, ok := r.rt.Inbox(r.channel.Platform).(adapters.ReactionInbox)
				if !ok {
					r.t.Fatal("the inbox takes no reactions")
				}
				err := react.DeliverReaction(r.ctx, r.channel, state.Reaction{MessageID: "1901", SenderID: "ada", SenderName: "Ada", Emoji: "👍", Time: r.clock.Now()})
				if err != nil {
					r.t.Fatal(err)
				}
				r.say(scriptLine{after: 2 * time.Minute, from: "Bo", text: "@juni_bot and which way do we look?", mention: true})
				r.wake("addressed:mention")
			},
		},
		{
			// The model calls tools of an MCP server: a forecast, then a
			// tide gauge that does not exist (the tool reports an error)
			// and the right one. Each tick records the call, its outcome
			// and the tool's text, and the header the catalog, so the
			// session replays with no server.
			file: "tools.jsonl", start: day.Add(8 * time.Hour), firstID: 1400,
			channel: state.Channel{ID: "733001", Platform: "telegram", Title: "Ines"},
			tools:   weatherServer,
			steps: []scriptStep{
				{answer: `{"action":"weather.forecast","place":"harbour","hour":"00:00"}`, latency: millis(1200)},
				{answer: runtimetest.SendAnswer("733001", "fog thins after 23:40 and it should be clear by half past midnight. bring a jumper, 9 degrees."), latency: millis(1300)},
				{answer: `{"action":"weather.tides","gauge":"pier"}`, latency: millis(900)},
				{answer: `{"action":"weather.tides","gauge":"north-quay"}`, latency: millis(1000)},
				{answer: runtimetest.SendAnswer("733001", "high water at 02:14, 4.1 m at the north quay. the pier has no gauge of its own."), latency: millis(1400)},
			},
			play: func(r *recording) {
				r.say(scriptLine{from: "Ines", text: "juni, will the fog lift by midnight? want to see the stars from the harbour"})
				r.wake("direct")
				r.say(scriptLine{after: 2 * time.Minute, from: "Ines", text: "and when is high water at the pier tonight?"})
				r.wake("direct")
			},
		},
	}
}

// TestRecordSessions records the shipped sessions with the product itself:
// the real runtime on a SQLite store, a scripted model and the recorder's
// clock, exported as airi ticks export exports. Run with -record.
func TestRecordSessions(t *testing.T) {
	if !*recordFlag {
		t.Skip("run with -record to record testdata/sessions anew")
	}
	for _, sc := range sessionScripts() {
		// One subtest per file, so that -run picks the sessions to record.
		t.Run(strings.TrimSuffix(sc.file, ".jsonl"), func(t *testing.T) {
			r := sc.record(t, filepath.Join(t.TempDir(), "airi.db"))
			out := r.export()
			r.close()
			if err := os.WriteFile(filepath.Join(sessionsDir, sc.file), out, 0o644); err != nil {
				t.Fatal(err)
			}
			if sc.file == "direct-chat.jsonl" {
				if err := os.WriteFile(filepath.Join("demo", "session.jsonl"), out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
