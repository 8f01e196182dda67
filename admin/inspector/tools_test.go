package inspector

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/state"
)

// TestTickPageShowsToolCalls checks that a tick that called a tool shows
// the call on its page (the tool, the outcome, the error, the arguments
// and the tool's text, escaped) and on the timeline, and that the tool's
// text is not listed as a message sent.
func TestTickPageShowsToolCalls(t *testing.T) {
	f := newFixture(t, Options{})
	tk := state.Tick{ChannelID: "c/2", Trigger: "direct", Wake: 2, Now: base.Add(time.Minute),
		Raw:    `{"action":"weather.tides","gauge":"<pier>"}`,
		Action: json.RawMessage(`{"action":"weather.tides","gauge":"<pier>"}`),
		Effects: json.RawMessage(`[{"kind":"tool","channelId":"c/2","content":"no gauge ` + strings.ReplaceAll(markup, `"`, `\"`) + `","tool":"weather.tides",` +
			`"args":{"gauge":"<pier>"},"outcome":"error","error":"weather.tides reported an error"}]`),
		Result: "weather.tides failed: weather.tides reported an error"}
	id, err := f.store.AddTick(context.Background(), tk)
	if err != nil {
		t.Fatal(err)
	}
	_, body := f.get(t, fmt.Sprintf("/ticks/%d", id))
	at := 0
	for _, want := range []string{
		"<dt>Tool call</dt>", `<code class="act">weather.tides</code>`, `<span class="badge t-error">error</span>`,
		`<span class="err">weather.tides reported an error</span>`,
		"arguments", "&#34;gauge&#34;: &#34;&lt;pier&gt;&#34;",
		"output", "no gauge &lt;img src=x onerror=alert(1)&gt;",
	} {
		i := strings.Index(body[at:], want)
		if i < 0 {
			t.Fatalf("the tick page lacks %q after offset %d:\n%s", want, at, body)
		}
		at += i
	}
	if strings.Contains(body, "<dt>Sent</dt>") || strings.Contains(body, markup) {
		t.Errorf("the tool's text is shown as sent, or unescaped:\n%s", body)
	}

	_, body = f.get(t, "/channels/c%2F2")
	if !strings.Contains(body, `<div class="toolcall">tool weather.tides: error</div>`) {
		t.Errorf("the timeline lacks the tool call:\n%s", body)
	}
	if strings.Contains(body, "→ no gauge") {
		t.Errorf("the timeline shows the tool's text as a message sent:\n%s", body)
	}
}
