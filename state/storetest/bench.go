package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/state"
)

// BenchmarkTick measures the store work of one tick on an engine, so that
// engines compare on the same work: read the new message, mark it read,
// load the history window, count unread, read and trim the action history,
// record the action and the tick, on a channel with 1,000 messages. open
// returns a new, empty store.
func BenchmarkTick(b *testing.B, open func(b *testing.B) state.Store) {
	s := open(b)
	defer s.Close()
	ctx := context.Background()
	const ch = "c"
	ids := make([]int64, 0, 1000)
	for i := range 1000 {
		m, _, err := s.Ingest(ctx, benchMsg(ch, -1-i))
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	if err := s.MarkRead(ctx, ids); err != nil {
		b.Fatal(err)
	}
	req := []state.ChatMessage{{Role: "system", Content: strings.Repeat("You are airi, a member of this group. ", 100)}}
	for i := range 20 {
		req = append(req, state.ChatMessage{Role: "user", Content: fmt.Sprintf("Ann: message number %d, of ordinary length for a chat.", i)})
	}
	action := json.RawMessage(`{"action":"send_message","channelId":"c","content":"hello there"}`)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		b.StopTimer()
		if _, _, err := s.Ingest(ctx, benchMsg(ch, i)); err != nil {
			b.Fatal(err)
		}
		i++
		b.StartTimer()
		if err := tickWork(ctx, s, ch, req, action); err != nil {
			b.Fatal(err)
		}
	}
}

func benchMsg(ch string, i int) state.Message {
	return state.Message{ChannelID: ch, PlatformID: fmt.Sprint("m", i), SenderID: "u1", SenderName: "Ann",
		Content: "a typical group chat line, about eighty characters long, with a question?", Time: time.Unix(1_700_000_000+int64(i), 0)}
}

func tickWork(ctx context.Context, s state.Store, ch string, req []state.ChatMessage, action json.RawMessage) error {
	unread, err := s.Unread(ctx, ch, 20)
	if err != nil {
		return err
	}
	ids := make([]int64, len(unread))
	for i, m := range unread {
		ids[i] = m.ID
	}
	if err := s.MarkRead(ctx, ids); err != nil {
		return err
	}
	if _, _, err := s.History(ctx, ch, 20); err != nil {
		return err
	}
	if _, err := s.UnreadCounts(ctx); err != nil {
		return err
	}
	if _, err := s.Actions(ctx, ch, 20); err != nil {
		return err
	}
	if _, err := s.AppendAction(ctx, state.ActionRecord{ChannelID: ch, Wake: 1, Action: action, Name: "send_message",
		OK: true, Result: "sent", Time: time.Unix(1_700_000_000, 0)}); err != nil {
		return err
	}
	if err := s.TrimActions(ctx, ch, 20, 50); err != nil {
		return err
	}
	_, err = s.AddTick(ctx, state.Tick{ChannelID: ch, Wake: 1, Trigger: "message", Now: time.Unix(1_700_000_000, 0),
		Request: req, Raw: string(action), Usage: state.Usage{PromptTokens: 1500, CompletionTokens: 40},
		LatencyMS: 900, Action: action, Result: "sent", OK: true})
	return err
}
