package runtime

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/state"
)

// TestEditsAndDeletionsReplay records a chat with an edit after the
// reply, exports it as a session and replays it: the edit is an event
// line of its own, and every request renders byte for byte as recorded.
func TestEditsAndDeletionsReplay(t *testing.T) {
	srv, tg := newTelegram(t)
	chat := strconv.FormatInt(ada.ID, 10)
	c := newChatsBot(t, Config{SendUser: true}, sendTo(chat, "noted"), tg.adapter, tg.clock)

	m := srv.Post(telegramtest.Incoming{From: ada, Text: "meet at 5 m-aaa"})
	tg.poll(c.b)
	c.runDue(time.Minute)
	c.clock.add(time.Minute)
	if err := srv.Edit(m.Chat.ID, m.MessageID, "meet at 6 m-bbb"); err != nil {
		t.Fatal(err)
	}
	tg.poll(c.b)
	c.clock.add(time.Minute)
	srv.Post(telegramtest.Incoming{From: ada, Text: "ok? m-ccc"})
	tg.poll(c.b)
	c.runDue(time.Minute)

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
	if !strings.Contains(text, `"content":"meet at 5 m-aaa"`) || !strings.Contains(text, `"change":"edited"`) {
		t.Fatalf("the session does not record the message and its edit:\n%s", text)
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
