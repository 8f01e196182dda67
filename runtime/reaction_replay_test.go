package runtime

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/state"
)

// TestReactionReplays records a chat in which Ada reacts to the bot's
// answer before writing again, exports it as a session and replays it
// strictly: the reaction is an event line of its own, and replay feeds
// it back so the next request shows it as recorded, byte for byte.
func TestReactionReplays(t *testing.T) {
	srv, tg := newTelegram(t)
	chat := strconv.FormatInt(ada.ID, 10)
	c := newChatsBot(t, Config{SendUser: true}, sendTo(chat, "noted"), tg.adapter, tg.clock)

	srv.Post(telegramtest.Incoming{From: ada, Text: "we shipped it m-aaa"})
	tg.poll(c.b)
	c.runDue(time.Minute)
	sent := srv.Sent()
	if len(sent) != 1 {
		t.Fatalf("sent %d messages, want the answer", len(sent))
	}
	c.clock.add(time.Minute)
	if queued, err := srv.React(ada.ID, sent[0].MessageID, ada, "🔥"); err != nil || !queued {
		t.Fatalf("React = %v, %v", queued, err)
	}
	tg.poll(c.b)
	c.clock.add(time.Minute)
	srv.Post(telegramtest.Incoming{From: ada, Text: "see it? m-bbb"})
	tg.poll(c.b)
	c.runDue(time.Minute)

	ticks, err := c.b.store.Ticks(context.Background(), state.TickFilter{ChannelID: chat})
	if err != nil || len(ticks) != 2 {
		t.Fatalf("%d ticks recorded, %v; want 2", len(ticks), err)
	}
	shown := fmt.Sprintf("Ada reacted 🔥 to your message %d", sent[0].MessageID)
	if req := ticks[1].Request; !strings.Contains(req[len(req)-1].Content, shown) {
		t.Fatalf("the second request does not show the reaction %q:\n%s", shown, req[len(req)-1].Content)
	}

	sessions, err := replay.Export(context.Background(), c.b.store, replay.ExportOptions{Filter: state.TickFilter{ChannelID: chat},
		Settings: replay.Settings{MaxIterations: 3, SendUser: true}})
	if err != nil || len(sessions) != 1 {
		t.Fatalf("export: %d sessions, %v", len(sessions), err)
	}
	var buf bytes.Buffer
	if err := replay.Write(&buf, sessions[0]); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if want := fmt.Sprintf(`"platformId":"%d","senderId":"%d","sender":"Ada","content":"","reaction":"🔥"}`, sent[0].MessageID, ada.ID); !strings.Contains(text, want) {
		t.Fatalf("the session does not record the reaction as %s:\n%s", want, text)
	}
	read, err := replay.Read(strings.NewReader(text))
	if err != nil || len(read) != 1 {
		t.Fatalf("read back: %v", err)
	}
	rep, err := replay.Play(context.Background(), read[0], ReplayOpener(Config{}, zaptest.NewLogger(t)), replay.Options{Prompts: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Divergence != nil {
		t.Fatalf("diverged: %s", rep.Divergence)
	}
	if len(rep.Prompts) != 0 || rep.Recorded != 2 {
		t.Fatalf("%d ticks recorded; requests rendered differently: %+v", rep.Recorded, rep.Prompts)
	}
}
