package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/adapters/console"
	"github.com/airi-go/airi/runtime/runtimetest"
	"github.com/airi-go/airi/scheduler"
	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
	"github.com/airi-go/airi/tools"
)

// weatherServer is an MCP server of the official SDK, served in process
// over streamable HTTP: "forecast" answers with a forecast, "station"
// reports an error. It counts the calls it answers.
type weatherServer struct {
	*httptest.Server
	mcp   *mcp.Server
	mu    sync.Mutex
	calls int
}

func (w *weatherServer) called() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls
}

func newWeatherServer(t *testing.T) *weatherServer {
	t.Helper()
	w := &weatherServer{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1"}, nil)
	type forecastIn struct {
		City string `json:"city" jsonschema:"the city to forecast"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "forecast", Description: "Tomorrow's weather in a city."},
		func(_ context.Context, _ *mcp.CallToolRequest, in forecastIn) (*mcp.CallToolResult, any, error) {
			w.mu.Lock()
			w.calls++
			w.mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny in " + in.City + ", 21°C <b>"}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "station", Description: "The nearest weather station."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			w.mu.Lock()
			w.calls++
			w.mu.Unlock()
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no station answers"}}}, nil, nil
		})
	w.mcp = srv
	w.Server = httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(w.Close)
	return w
}

// stepClock is a clock that moves only when the test moves it.
type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// recordToolSession runs one wake of a direct chat in which the model
// calls srv.forecast, then srv.station (which fails), then answers, on a
// bot whose only tool server is the in-process weather server, and
// returns the session exported from its store.
func recordToolSession(t *testing.T, w *weatherServer) string {
	t.Helper()
	ctx := t.Context()
	log := zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel))
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "airi.db"), log)
	if err != nil {
		t.Fatal(err)
	}
	ch := state.Channel{ID: "dm", Platform: console.Name, Title: "Ann"}
	model := &runtimetest.Model{}
	model.Queue(ch.ID,
		`{"action":"srv.forecast","city":"Oslo"}`,
		`{"action":"srv.station"}`,
		runtimetest.SendAnswer(ch.ID, "sunny tomorrow"))
	clock := &stepClock{now: time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)}
	cfg := Config{BotName: "Juni", MaxIterations: 5, Tools: tools.Config{Servers: []tools.Server{{Name: "srv", URL: w.URL}}}}
	con := console.New(console.Config{}, strings.NewReader(""), &bytes.Buffer{}, log)
	b, err := New(cfg, Deps{Store: store, Model: model, Adapters: []Adapter{{Sender: con}}, Now: clock.Now, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := b.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
	}()
	b.tools.Start(ctx)
	for {
		changed := b.tools.Changed()
		if _, ok := b.tools.Lookup("srv.station"); ok {
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatal("the weather server's tools were never listed")
		}
	}
	msg := state.Message{ChannelID: ch.ID, PlatformID: "m1", SenderID: "console:ann", SenderName: "Ann",
		Content: "will it rain in Oslo tomorrow?", Time: clock.Now()}
	if err := b.sched.Deliver(ctx, ch, msg); err != nil {
		t.Fatal(err)
	}
	clock.add(time.Second)
	b.sched.Wake(ctx, ch.ID, scheduler.Trigger("message"))
	if got := w.called(); got != 2 {
		t.Fatalf("the server answered %d calls, want 2", got)
	}
	var out bytes.Buffer
	if n, err := ExportSessions(ctx, b.store, cfg, state.TickFilter{}, &out); err != nil || n != 1 {
		t.Fatalf("export: %d sessions, %v", n, err)
	}
	return out.String()
}

// playSession replays text with no tool server configured.
func playSession(t *testing.T, text string) *replay.Report {
	t.Helper()
	sessions, err := replay.Read(strings.NewReader(text))
	if err != nil || len(sessions) != 1 {
		t.Fatalf("read the session: %d, %v", len(sessions), err)
	}
	rep, err := replay.Play(t.Context(), sessions[0], ReplayOpener(Config{}, zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel))), replay.Options{Prompts: true})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestToolCallsReplayFromTheRecording records a wake with two tool calls
// (one ok, one reported as an error by the tool) against a real MCP
// server, exports it and replays it with the server gone and none
// configured: the calls are answered from the recording, every action and
// effect matches and every request renders byte for byte as recorded.
// Edited so that a call was recorded with other arguments, or not at
// all, the replay reports the tool call as the divergence.
func TestToolCallsReplayFromTheRecording(t *testing.T) {
	w := newWeatherServer(t)
	text := recordToolSession(t, w)
	w.Close()
	for _, want := range []string{
		`"tools":{"catalog":[{"name":"srv.forecast","description":"Tomorrow's weather in a city."`,
		`{"kind":"tool","channelId":"dm","content":"sunny in Oslo, 21°C <b>","tool":"srv.forecast","args":{"city":"Oslo"},"outcome":"ok"}`,
		`{"kind":"tool","channelId":"dm","content":"no station answers","tool":"srv.station","args":{},"outcome":"error","error":"srv.station reported an error"}`,
	} {
		if !strings.Contains(text, want) {
			t.Fatalf("the session lacks %s:\n%s", want, text)
		}
	}

	t.Run("as recorded", func(t *testing.T) {
		rep := playSession(t, text)
		if rep.Divergence != nil {
			t.Fatalf("diverged: %s", rep.Divergence)
		}
		if rep.Recorded != 3 || rep.Replayed != 3 {
			t.Fatalf("%d ticks recorded, %d replayed; want 3 and 3", rep.Recorded, rep.Replayed)
		}
		if len(rep.Prompts) != 0 {
			t.Fatalf("requests rendered differently: %+v", rep.Prompts)
		}
		if !strings.Contains(rep.Rendered[2][len(rep.Rendered[2])-1].Content, "sunny in Oslo") {
			t.Errorf("the second request does not show the recorded tool output:\n%s", rep.Rendered[2][len(rep.Rendered[2])-1].Content)
		}
	})
	t.Run("other arguments", func(t *testing.T) {
		edited := strings.Replace(text, `"args":{"city":"Oslo"}`, `"args":{"city":"Bergen"}`, 1)
		rep := playSession(t, edited)
		d := rep.Divergence
		if d == nil || d.Tick != 1 || d.What != "tool call" || !strings.Contains(d.Expected, `srv.forecast {"city":"Bergen"}`) ||
			!strings.Contains(d.Got, `srv.forecast {"city":"Oslo"} (the recording has no result for it)`) {
			t.Fatalf("divergence = %v, want tick 1's tool call", d)
		}
	})
	t.Run("no recorded result", func(t *testing.T) {
		edited := dropToolEffect(t, text, "srv.station")
		rep := playSession(t, edited)
		d := rep.Divergence
		if d == nil || d.Tick != 2 || d.What != "tool call" || d.Expected != "no tool call" || !strings.Contains(d.Got, "srv.station {}") {
			t.Fatalf("divergence = %v, want tick 2's tool call", d)
		}
	})
}

// dropToolEffect returns the session text with the effect of the call
// of tool removed from its tick.
func dropToolEffect(t *testing.T, text, tool string) string {
	t.Helper()
	sessions, err := replay.Read(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	dropped := false
	for _, tk := range sessions[0].Ticks() {
		var keep []actions.Effect
		for _, e := range tk.EffectList() {
			if e.Kind == actions.EffectTool && e.Tool == tool {
				dropped = true
				continue
			}
			keep = append(keep, e)
		}
		tk.Effects = nil
		if len(keep) > 0 {
			if tk.Effects, err = json.Marshal(keep); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !dropped {
		t.Fatalf("no call of %s in the session", tool)
	}
	var b bytes.Buffer
	if err := replay.Write(&b, sessions[0]); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestToolListChangeReachesTheNextRequest adds a tool to the running
// server between two wakes: the next request's catalog lists it, and the
// catalog kept for export is the new one.
func TestToolListChangeReachesTheNextRequest(t *testing.T) {
	w := newWeatherServer(t)
	ctx := t.Context()
	log := zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel))
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "airi.db"), log)
	if err != nil {
		t.Fatal(err)
	}
	ch := state.Channel{ID: "dm", Platform: console.Name, Title: "Ann"}
	model := &runtimetest.Model{}
	cfg := Config{BotName: "Juni", MaxIterations: 5, Tools: tools.Config{Servers: []tools.Server{{Name: "srv", URL: w.URL}}}}
	con := console.New(console.Config{}, strings.NewReader(""), &bytes.Buffer{}, log)
	b, err := New(cfg, Deps{Store: store, Model: model, Adapters: []Adapter{{Sender: con}}, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := b.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
	}()
	b.tools.Start(ctx)
	waitForTool := func(name string) {
		t.Helper()
		for {
			changed := b.tools.Changed()
			if _, ok := b.tools.Lookup(name); ok {
				return
			}
			select {
			case <-changed:
			case <-ctx.Done():
				t.Fatalf("%s was never listed", name)
			}
		}
	}
	waitForTool("srv.forecast")
	ask := func(n int, text string) string {
		t.Helper()
		msg := state.Message{ChannelID: ch.ID, PlatformID: fmt.Sprint("m", n), SenderID: "console:ann", SenderName: "Ann", Content: text, Time: time.Now()}
		if err := b.sched.Deliver(ctx, ch, msg); err != nil {
			t.Fatal(err)
		}
		b.sched.Wake(ctx, ch.ID, scheduler.Trigger("message"))
		reqs := model.Requests(ch.ID)
		if len(reqs) != n {
			t.Fatalf("%d requests after wake %d", len(reqs), n)
		}
		return reqs[n-1][0].Content
	}
	if sys := ask(1, "hi"); !strings.Contains(sys, "- srv.forecast {city}") || strings.Contains(sys, "srv.radar") {
		t.Fatalf("the first catalog is not the server's first list:\n%s", sys)
	}

	mcp.AddTool(w.mcp, &mcp.Tool{Name: "radar", Description: "The rain radar for a city."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "dry"}}}, nil, nil
		})
	waitForTool("srv.radar")
	if sys := ask(2, "and now?"); !strings.Contains(sys, "- srv.radar: The rain radar for a city.") {
		t.Fatalf("the next request's catalog lacks the added tool:\n%s", sys)
	}
	kept, err := store.Cursor(ctx, CatalogKey)
	if err != nil || !strings.Contains(kept, `"name":"srv.radar"`) {
		t.Errorf("kept catalog = %s, %v; want it to list srv.radar", kept, err)
	}
}
