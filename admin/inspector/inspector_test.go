package inspector

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

const markup = `<img src=x onerror=alert(1)>`

var base = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

// fixture is a store with two channels, markup in every piece of chat
// text, and an inspector serving it.
type fixture struct {
	store *sqlite.Store
	srv   *httptest.Server
	ticks []state.Tick
}

func newFixture(t *testing.T, opts Options) *fixture {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "airi.db"), zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	opts.Store, opts.Logger = st, zaptest.NewLogger(t)
	in, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	in.Register(mux, func(h http.Handler) http.Handler { return h })
	f := &fixture{store: st, srv: httptest.NewServer(mux)}
	t.Cleanup(f.srv.Close)
	for _, ch := range []state.Channel{
		{ID: "-100", Platform: "telegram", Group: true, Title: "Team " + markup, Members: []string{"Ann"}},
		{ID: "c/2", Platform: "console", Title: "Console"},
	} {
		if err := st.UpsertChannel(ctx, ch); err != nil {
			t.Fatal(err)
		}
	}
	f.message(t, "-100", "Ann "+markup, "hi "+markup, 0)
	sys := "You are Juni.\n\n# Rules " + markup
	for i, tk := range []state.Tick{
		{Raw: `{"action":"send_message","channelId":"-100","content":"` + strings.ReplaceAll(markup, `"`, `\"`) + `"}`,
			Action:  json.RawMessage(`{"action":"send_message","channelId":"-100","content":"<b>hey</b>"}`),
			Effects: json.RawMessage(`[{"kind":"send","channelId":"-100","content":"<b>hey</b>","messageId":"9"}]`),
			Notes:   []string{"repaired " + markup}, Result: "sent", OK: true},
		{Raw: "not json " + markup, ParseError: "no JSON object " + markup, Result: "your answer was not a valid action"},
		{ModelError: "model call: 500 " + markup},
	} {
		tk.ChannelID, tk.Trigger, tk.Wake, tk.Now = "-100", "direct", 1, base.Add(time.Duration(i+1)*time.Second)
		tk.Reasoning = "because " + markup
		tk.Request = []state.ChatMessage{{Role: "system", Content: sys}, {Role: "user", Content: "Ann: hi " + markup}, {Role: "user", Content: fmt.Sprintf("[runtime state] tick %d", i)}}
		tk.Sections = []state.Section{
			{Name: "persona", Order: 10, Source: "embedded:persona.md", Cache: "static", Message: 0, Start: 0, End: 13},
			{Name: "rules", Order: 300, Source: "embedded:rules.md", Cache: "static", Message: 0, Start: 15, End: len(sys)},
			{Name: "state", Order: 0, Source: "embedded:state.md", Cache: "volatile", Message: 2, Start: 0, End: 15},
		}
		id, err := st.AddTick(ctx, tk)
		if err != nil {
			t.Fatal(err)
		}
		tk.ID = id
		f.ticks = append(f.ticks, tk)
	}
	return f
}

func (f *fixture) message(t *testing.T, ch, sender, text string, n int) state.Message {
	t.Helper()
	m, _, err := f.store.Ingest(context.Background(), state.Message{ChannelID: ch, PlatformID: fmt.Sprint("p", n, sender), SenderName: sender, Content: text, Time: base.Add(time.Duration(n) * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (f *fixture) get(t *testing.T, path string) (*http.Response, string) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(f.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// TestChatTextIsEscaped reads every page and fragment of a store whose
// chat text, titles, answers, errors and notes hold markup.
func TestChatTextIsEscaped(t *testing.T) {
	f := newFixture(t, Options{})
	paths := []string{"/", "/channels/-100", "/search?q=img", "/search?outcome=parse-error", "/live?channel=-100&m=0&t=0"}
	for _, tk := range f.ticks {
		paths = append(paths, fmt.Sprintf("/ticks/%d", tk.ID))
	}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			resp, body := f.get(t, p)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			for _, raw := range []string{"<img", "<b>hey"} {
				if strings.Contains(body, raw) {
					t.Errorf("%s holds %q unescaped", p, raw)
				}
			}
			if !strings.Contains(body, "&lt;img src=x onerror=alert(1)&gt;") {
				t.Errorf("%s does not show the markup as text:\n%s", p, body)
			}
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
				t.Errorf("Content-Security-Policy = %q", csp)
			}
		})
	}
}

var (
	itemRe  = regexp.MustCompile(`<li class="item [^"]*" data-key="([^"]+)"`)
	olderRe = regexp.MustCompile(`<a rel="next" href="([^"]+)">Older`)
)

// TestTimelinePages follows "older" from the newest page to the end: each
// page holds at most the page size, and every item shows up once, newest
// first.
func TestTimelinePages(t *testing.T) {
	f := newFixture(t, Options{PageSize: 7})
	for n := 1; n <= 30; n++ {
		f.message(t, "-100", "Bob", fmt.Sprintf("message %d", n), n*100)
	}
	const total = 1 + 30 + 3 // the fixture's message and ticks, and these
	var keys []string
	path, pages := "/channels/-100", 0
	for path != "" {
		resp, body := f.get(t, path)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
		pages++
		items := itemRe.FindAllStringSubmatch(body, -1)
		if len(items) > 7 {
			t.Fatalf("page %d holds %d items", pages, len(items))
		}
		for _, m := range items {
			keys = append(keys, m[1])
		}
		if pages == 1 != strings.Contains(body, `data-live="/live?channel=-100"`) {
			t.Errorf("page %d: live mode only on the newest page", pages)
		}
		path = ""
		if m := olderRe.FindStringSubmatch(body); m != nil {
			path = strings.ReplaceAll(m[1], "&amp;", "&")
		}
	}
	if len(keys) != total || pages != (total+6)/7 {
		t.Fatalf("%d items on %d pages, want %d on %d", len(keys), pages, total, (total+6)/7)
	}
	for i := 1; i < len(keys); i++ {
		if keys[i] >= keys[i-1] {
			t.Fatalf("item %d (%s) is not older than %s", i, keys[i], keys[i-1])
		}
	}
}

// TestLive checks the live poll: rows newer than the page's ids, and the
// new ids in headers.
func TestLive(t *testing.T) {
	f := newFixture(t, Options{})
	last := f.ticks[len(f.ticks)-1]
	// A tick recorded after a newer message: it is still new to the page.
	m := f.message(t, "-100", "Cy", "later "+markup, 10_000)
	late := state.Tick{ChannelID: "-100", Trigger: "direct", Now: base.Add(5 * time.Millisecond), Result: "late", OK: true}
	lateID, err := f.store.AddTick(context.Background(), late)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		query      string
		code       int
		rows       int
		lastM      string
		lastT      string
		mustHave   []string
		mustNotHav []string
	}{
		{"nothing new", fmt.Sprintf("channel=-100&m=%d&t=%d", m.ID, lateID), 200, 0, fmt.Sprint(m.ID), fmt.Sprint(lateID), nil, nil},
		{"a message and a late tick", fmt.Sprintf("channel=-100&m=%d&t=%d", m.ID-1, last.ID), 200, 2, fmt.Sprint(m.ID), fmt.Sprint(lateID), []string{"later &lt;img", fmt.Sprintf("tick #%d", lateID)}, []string{fmt.Sprintf("tick #%d<", last.ID)}},
		{"ticks only", "channel=-100&m=0&t=0&outcome=parse-error", 200, 1, "0", fmt.Sprint(f.ticks[1].ID), []string{"parse error"}, []string{"later"}},
		{"bad watermark", "channel=-100&m=x&t=0", 400, 0, "", "", nil, nil},
		{"no channel", "m=0&t=0", 400, 0, "", "", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := f.get(t, "/live?"+tt.query)
			if resp.StatusCode != tt.code {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.code, body)
			}
			if tt.code != 200 {
				return
			}
			if n := len(itemRe.FindAllString(body, -1)); n != tt.rows {
				t.Errorf("%d rows, want %d:\n%s", n, tt.rows, body)
			}
			if got := resp.Header.Get("X-Airi-Last-Message"); got != tt.lastM {
				t.Errorf("last message %s, want %s", got, tt.lastM)
			}
			if got := resp.Header.Get("X-Airi-Last-Tick"); got != tt.lastT {
				t.Errorf("last tick %s, want %s", got, tt.lastT)
			}
			for _, s := range tt.mustHave {
				if !strings.Contains(body, s) {
					t.Errorf("lacks %q", s)
				}
			}
			for _, s := range tt.mustNotHav {
				if strings.Contains(body, s) {
					t.Errorf("holds %q", s)
				}
			}
		})
	}
}

func TestSearch(t *testing.T) {
	f := newFixture(t, Options{})
	tk := f.ticks[1]
	tests := []struct {
		name     string
		path     string
		code     int
		location string
		want     []string
	}{
		{"tick id", fmt.Sprintf("/search?q=%%23%d", tk.ID), 303, fmt.Sprintf("/ticks/%d", tk.ID), nil},
		{"bare tick id", fmt.Sprintf("/search?q=%d", tk.ID), 303, fmt.Sprintf("/ticks/%d", tk.ID), nil},
		{"unknown tick id", "/search?q=%23999", 200, "", []string{"There is no tick #999"}},
		{"text, any case", "/search?q=HI+%3Cimg", 200, "", []string{"hi &lt;img", `href="/channels/-100?before=`}},
		{"outcome", "/search?outcome=model-error", 200, "", []string{"model call: 500"}},
		{"outcome in a channel", "/search?outcome=model-error&channel=c%2F2", 200, "", []string{"Nothing found"}},
		{"text and outcome", "/search?q=hi&outcome=sent", 400, "", []string{"not both"}},
		{"empty", "/search", 200, "", []string{"Find messages by their text"}},
		{"old tick list", "/ticks?outcome=sent", 303, "/search?outcome=sent", nil},
		{"unknown outcome", "/channels/-100?outcome=exploded", 400, "", nil},
		{"unknown channel", "/channels/nope", 404, "", nil},
		{"channel id with a slash", "/channels/c%2F2", 200, "", []string{"Console"}},
		{"bad position", "/channels/-100?before=yesterday", 400, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := f.get(t, tt.path)
			if resp.StatusCode != tt.code {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.code, body)
			}
			if got := resp.Header.Get("Location"); got != tt.location {
				t.Errorf("Location %q, want %q", got, tt.location)
			}
			for _, s := range tt.want {
				if !strings.Contains(body, s) {
					t.Errorf("lacks %q:\n%s", s, body)
				}
			}
		})
	}
}

// TestTickPage checks the order of a tick page (summary, then the request
// by layer and section, then the diff) and its steps through the channel.
func TestTickPage(t *testing.T) {
	f := newFixture(t, Options{})
	first, mid, last := f.ticks[0], f.ticks[1], f.ticks[2]
	tests := []struct {
		tick state.Tick
		want []string // in this order
		not  []string
	}{
		{first, []string{`id="summary"`, `id="action">send_message`, "repair", "→ &lt;b&gt;hey&lt;/b&gt;", `id="request"`, "persona", "rules", "state", "No earlier tick"},
			[]string{`rel="prev"`}},
		{mid, []string{fmt.Sprintf(`rel="prev" href="/ticks/%d"`, first.ID), fmt.Sprintf(`rel="next" href="/ticks/%d"`, last.ID), "Parse error", "no JSON object", `id="request"`, `<span class="del">-[runtime state] tick 0</span>`, `<span class="add">&#43;[runtime state] tick 1</span>`},
			nil},
		{last, []string{"last →", "Model error", "model call: 500", `id="request"`}, []string{`rel="next"`}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.tick.ID), func(t *testing.T) {
			resp, body := f.get(t, fmt.Sprintf("/ticks/%d", tt.tick.ID))
			if resp.StatusCode != 200 {
				t.Fatalf("status %d", resp.StatusCode)
			}
			at := 0
			for _, s := range tt.want {
				i := strings.Index(body[at:], s)
				if i < 0 {
					t.Fatalf("lacks %q after offset %d:\n%s", s, at, body)
				}
				at += i
			}
			for _, s := range tt.not {
				if strings.Contains(body, s) {
					t.Errorf("holds %q", s)
				}
			}
		})
	}
}

func TestSections(t *testing.T) {
	content := "AAAA\n\nBBBB\n\nleft over"
	tests := []struct {
		name  string
		spans []state.Section
		want  []string // names, "" for unnamed parts
	}{
		{"none recorded", nil, []string{""}},
		{"all", []state.Section{{Name: "a", Start: 0, End: 4}, {Name: "b", Start: 6, End: 10}, {Name: "c", Start: 12, End: 21}}, []string{"a", "b", "c"}},
		{"unclaimed text kept", []state.Section{{Name: "b", Start: 6, End: 10}}, []string{"", "b", ""}},
		{"out of order", []state.Section{{Name: "b", Start: 6, End: 10}, {Name: "a", Start: 0, End: 4}}, []string{"a", "b", ""}},
		{"overlap", []state.Section{{Name: "a", Start: 0, End: 8}, {Name: "b", Start: 6, End: 10}}, []string{"a", ""}},
		{"out of range", []state.Section{{Name: "a", Start: 0, End: 99}, {Name: "m", Message: 1, Start: 0, End: 4}}, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var names []string
			var text strings.Builder
			for _, s := range sections(tt.spans, 0, content) {
				names = append(names, s.Name)
				text.WriteString(s.Text)
			}
			if strings.Join(names, ",") != strings.Join(tt.want, ",") {
				t.Errorf("sections %q, want %q", names, tt.want)
			}
			if strings.TrimSpace(strings.ReplaceAll(text.String(), "\n", "")) == "" {
				t.Error("no text")
			}
		})
	}
}

func TestPositions(t *testing.T) {
	for _, p := range []state.TimelinePos{
		{Time: base, ID: 7},
		{Time: base.Add(time.Nanosecond), Tick: true, ID: 12},
	} {
		got, err := parsePos(posParam(p))
		if err != nil || got != p {
			t.Errorf("parsePos(posParam(%+v)) = %+v, %v", p, got, err)
		}
	}
	for _, bad := range []string{"x", "1.x2", "1.m", "1.m-3", ".t1", "1t1"} {
		if _, err := parsePos(bad); err == nil {
			t.Errorf("parsePos(%q): no error", bad)
		}
	}
}

func TestOptions(t *testing.T) {
	f := newFixture(t, Options{LiveInterval: 10, PageSize: 10_000})
	_, body := f.get(t, "/channels/-100")
	if !strings.Contains(body, `data-interval="1000"`) {
		t.Error("a live interval under a second is not raised to one")
	}
	if _, err := New(Options{}); err == nil {
		t.Error("New without a store: no error")
	}
}

// TestTimelineSaysWhyNothingWoke checks that a message that woke nothing
// says why on its row, and that one that woke the bot says nothing of
// the kind.
func TestTimelineSaysWhyNothingWoke(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := context.Background()
	quiet := f.message(t, "-100", "Bob", "just chatting", 500)
	woke := f.message(t, "-100", "Ann", "airi, hello", 600)
	if err := f.store.SetDecision(ctx, []int64{quiet.ID}, "unaddressed"); err != nil {
		t.Fatal(err)
	}
	if err := f.store.SetDecision(ctx, []int64{woke.ID}, "addressed:alias"); err != nil {
		t.Fatal(err)
	}
	_, body := f.get(t, "/channels/-100")
	rows := strings.Split(body, `<li class="item`)
	var quietRow, wokeRow string
	for _, r := range rows {
		switch {
		case strings.Contains(r, "just chatting"):
			quietRow = r
		case strings.Contains(r, "airi, hello"):
			wokeRow = r
		}
	}
	if !strings.Contains(quietRow, "not woken: unaddressed") {
		t.Errorf("the unaddressed message's row does not say why it woke nothing:\n%s", quietRow)
	}
	if wokeRow == "" || strings.Contains(wokeRow, "not woken") {
		t.Errorf("the addressed message's row says it woke nothing:\n%s", wokeRow)
	}
}

func TestTimelineShowsPendingReminders(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := context.Background()
	due := time.Date(2030, 1, 2, 9, 0, 0, 0, time.UTC)
	if _, err := f.store.AddReminder(ctx, state.Reminder{ChannelID: "-100", Content: "standup " + markup, Due: due, Every: "daily", Zone: "UTC"}, state.ReminderLimits{}); err != nil {
		t.Fatal(err)
	}
	other, err := f.store.AddReminder(ctx, state.Reminder{ChannelID: "c/2", Content: "not here", Due: due, Zone: "UTC"}, state.ReminderLimits{})
	if err != nil {
		t.Fatal(err)
	}
	_, body := f.get(t, "/channels/-100")
	if !strings.Contains(body, "Pending reminders") || !strings.Contains(body, "2030-01-02 09:00 UTC") || !strings.Contains(body, "every daily") {
		t.Fatalf("timeline lacks the pending reminder:\n%s", body)
	}
	if strings.Contains(body, markup) || strings.Contains(body, "not here") {
		t.Fatal("the reminder's text is not escaped, or another chat's reminder is shown")
	}
	if err := f.store.CancelReminder(ctx, other.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, body := f.get(t, "/channels/c%2F2"); strings.Contains(body, "Pending reminders") {
		t.Fatal("a cancelled reminder is shown as pending")
	}
}
