package runtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// reactingSender also puts reactions on messages.
type reactingSender struct {
	fakeSender
	reacted []state.Reacting
}

func (r *reactingSender) React(_ context.Context, x state.Reacting) error {
	r.reacted = append(r.reacted, x)
	return nil
}

func TestRouterReact(t *testing.T) {
	tg := &reactingSender{fakeSender: fakeSender{name: "telegram"}}
	plain := &fakeSender{name: "satori"}
	r := newRouter(Adapter{Sender: tg}, Adapter{Sender: plain})
	if err := r.React(context.Background(), state.Reacting{ChannelID: "telegram:-1001", MessageID: "7", Emoji: "👍"}); err != nil {
		t.Fatal(err)
	}
	if len(tg.reacted) != 1 || tg.reacted[0] != (state.Reacting{ChannelID: "-1001", MessageID: "7", Emoji: "👍"}) {
		t.Errorf("reacted %+v, want the adapter's own chat id", tg.reacted)
	}
	err := r.React(context.Background(), state.Reacting{ChannelID: "satori:42", MessageID: "7", Emoji: "👍"})
	if err == nil || !strings.Contains(err.Error(), "does not support reactions") {
		t.Errorf("React through an adapter without reactions = %v", err)
	}
}

func TestInboxDeliverReaction(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, t.TempDir()+"/r.db", zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// Two adapters: ids the model sees are qualified.
	r := newRouter(Adapter{Sender: &fakeSender{name: "telegram"}}, Adapter{Sender: &fakeSender{name: "satori"}})
	if _, _, err := st.Ingest(ctx, state.Message{ChannelID: "telegram:-1001", PlatformID: "812", Self: true, SenderName: "airi",
		Content: "hi", Time: at()}); err != nil {
		t.Fatal(err)
	}
	counted := map[string]int{}
	in := &inbox{adapter: "telegram", r: r, store: st, log: zaptest.NewLogger(t),
		onReaction: func(ch, outcome string) { counted[ch+" "+outcome]++ }}
	ch := state.Channel{ID: "-1001", Platform: "telegram", Group: true}
	for _, msg := range []string{"812", "813"} {
		if err := in.DeliverReaction(ctx, ch, state.Reaction{ChannelID: "-1001", MessageID: msg, SenderID: "5", SenderName: "Ada", Emoji: "👍", Time: at()}); err != nil {
			t.Fatal(err)
		}
	}
	if err := in.DeliverReaction(ctx, ch, state.Reaction{ChannelID: "-1001", MessageID: "812", Time: at()}); err == nil {
		t.Error("a reaction without an emoji was delivered")
	}
	got, err := st.NewReactions(ctx, "telegram:-1001", 0)
	if err != nil || len(got) != 1 || got[0].MessageID != "812" {
		t.Errorf("stored reactions %+v, %v; want the one on the bot's message, under the qualified id", got, err)
	}
	if counted["telegram:-1001 received"] != 1 || counted["telegram:-1001 ignored"] != 1 {
		t.Errorf("counted %v", counted)
	}
}

func at() time.Time { return time.Date(2026, 3, 14, 21, 40, 0, 0, time.UTC) }
