package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/airi-go/airi/adapters/satori/satoritest"
	"github.com/airi-go/airi/planner/openai/openaitest"
)

// TestRunSatori runs the bot against Satori servers of the current and the
// older protocol revision: it replies in a group and a direct channel, the
// model sees decoded text, and nothing is sent twice (the platform's echo of
// the bot's own messages included).
func TestRunSatori(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	for _, rev := range []satoritest.Revision{satoritest.Current, satoritest.Legacy} {
		t.Run(fmt.Sprintf("revision=%d", rev), func(t *testing.T) {
			sat := satoritest.NewServer(satoritest.Options{Revision: rev, Token: "sat-token", Echo: true,
				Logins: []satoritest.Login{{Platform: "qq", UserID: "10001", Name: "Juni"}}})
			defer sat.Close()
			texts := func() []string {
				var out []string
				for _, s := range sat.Sent() {
					out = append(out, s.Content)
				}
				return out
			}
			model := openaitest.NewServer(t, ackModel(texts, nil))
			bot := startBot(t, botEnv(model.URL(), dbIn(t),
				"SATORI_WS_URL="+sat.WSURL(), "SATORI_API_BASE_URL="+sat.APIBaseURL(), "SATORI_TOKEN=sat-token"))
			// Events pushed before the bot identifies are not replayed to it.
			waitUntil(t, "the bot identifies", bot, func() bool { return len(sat.Identifies()) > 0 })
			sat.PushMessage(satoritest.Message{ChannelID: "g1", ChannelName: "Harbour", GuildID: "guild1", UserID: "u1", UserName: "ann",
				Content: `<at id="10001" name="Juni"/> is 1 &lt; 2 &amp;&amp; tok-1? <img src="http://127.0.0.1/x.png"/>`})
			sat.PushMessage(satoritest.Message{ChannelID: "private:u2", Direct: true, UserID: "u2", UserName: "bob", Content: "hi tok-2"})
			waitUntil(t, "both channels are answered", bot, func() bool { return allAcked(ackCounts(texts()), 2) })
			bot.stop(t)

			for k, n := range ackCounts(texts()) {
				if n != 1 {
					t.Errorf("tok-%s answered %d times", k, n)
				}
			}
			channels := map[string]bool{}
			for _, s := range sat.Sent() {
				channels[s.ChannelID] = true
				if s.ContentType != "application/json" {
					t.Errorf("content type %q", s.ContentType)
				}
			}
			if !channels["g1"] || !channels["private:u2"] {
				t.Errorf("replies went to %v", channels)
			}
			var seen strings.Builder
			for _, r := range model.Requests() {
				for _, m := range r.Messages {
					seen.WriteString(m.Content)
				}
			}
			if !strings.Contains(seen.String(), "[photo] @Juni is 1 < 2 && tok-1?") {
				t.Errorf("the model did not see decoded text; requests:\n%s", seen.String())
			}
			if strings.Contains(seen.String(), "<at") || strings.Contains(seen.String(), "&lt;") {
				t.Error("raw markup reached the model")
			}
		})
	}
}
