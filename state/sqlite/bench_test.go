package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/state"
)

func benchStore(b *testing.B) *Store {
	b.Helper()
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "airi.db"), zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func benchMsg(ch string, i int) state.Message {
	return state.Message{
		ChannelID:  ch,
		PlatformID: fmt.Sprint("m", i),
		SenderID:   "u1",
		SenderName: "Ann",
		Content:    "a typical group chat line, about eighty characters long, with a question?",
		Time:       time.Unix(1_700_000_000+int64(i), 0),
	}
}

// fill gives a channel n read messages, a realistic history to query.
func fill(b *testing.B, s *Store, ch string, n int) {
	b.Helper()
	ctx := context.Background()
	ids := make([]int64, 0, n)
	for i := range n {
		m, _, err := s.Ingest(ctx, benchMsg(ch, -1-i))
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	if err := s.MarkRead(ctx, ids); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkIngest(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, _, err := s.Ingest(ctx, benchMsg(fmt.Sprint("c", i%8), i)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkIngestDuplicate(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	m := benchMsg("c", 1)
	if _, _, err := s.Ingest(ctx, m); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, isNew, err := s.Ingest(ctx, m); err != nil || isNew {
			b.Fatal(isNew, err)
		}
	}
}

func BenchmarkIngestParallel(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	var n atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := int(n.Add(1))
			if _, _, err := s.Ingest(ctx, benchMsg(fmt.Sprint("c", i%8), i)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// sampleRequest is a request of the size a tick sends: a system message of
// a few kilobytes, 20 history turns and the state message.
func sampleRequest() []state.ChatMessage {
	req := []state.ChatMessage{{Role: "system", Content: strings.Repeat("You are airi, a member of this group. ", 100)}}
	for i := range 20 {
		req = append(req, state.ChatMessage{Role: "user", Content: fmt.Sprintf("Ann: message number %d, of ordinary length for a chat.", i)})
	}
	return append(req, state.ChatMessage{Role: "user", Content: strings.Repeat("state line\n", 40)})
}

// tickWork is the store work of one tick: read the new messages, mark them
// read, load the history window, record the action and the tick.
func tickWork(ctx context.Context, s *Store, ch string, req []state.ChatMessage, full bool) error {
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
	if full {
		if _, err := s.UnreadCounts(ctx); err != nil {
			return err
		}
		if _, err := s.Actions(ctx, ch, 20); err != nil {
			return err
		}
	}
	action := json.RawMessage(`{"action":"send_message","channelId":"c","content":"hello there"}`)
	if _, err := s.AppendAction(ctx, state.ActionRecord{ChannelID: ch, Wake: 1, Action: action, Name: "send_message",
		OK: true, Result: "sent", Time: time.Unix(1_700_000_000, 0)}); err != nil {
		return err
	}
	if full {
		if err := s.TrimActions(ctx, ch, 20, 50); err != nil {
			return err
		}
	}
	_, err = s.AddTick(ctx, state.Tick{ChannelID: ch, Wake: 1, Trigger: "message", Now: time.Unix(1_700_000_000, 0),
		Request: req, Raw: string(action), Usage: state.Usage{PromptTokens: 1500, CompletionTokens: 40},
		LatencyMS: 900, Action: action, Result: "sent", OK: true, Effects: json.RawMessage(`[{"sent":1}]`)})
	return err
}

func benchTick(b *testing.B, full bool) {
	s := benchStore(b)
	ctx := context.Background()
	fill(b, s, "c", 1000)
	req := sampleRequest()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		// One new message per tick, outside the measurement.
		b.StopTimer()
		if _, _, err := s.Ingest(ctx, benchMsg("c", i)); err != nil {
			b.Fatal(err)
		}
		i++
		b.StartTimer()
		if err := tickWork(ctx, s, "c", req, full); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTick is the store work of one tick: Unread, MarkRead, History,
// AppendAction, AddTick, on a channel with 1,000 messages.
func BenchmarkTick(b *testing.B) { benchTick(b, false) }

// BenchmarkTickFull adds what a tick may also ask: UnreadCounts, Actions
// and TrimActions.
func BenchmarkTickFull(b *testing.B) { benchTick(b, true) }

// BenchmarkMixedParallel compares the read pool with doing everything on
// the single writer connection, under a load of mostly reads (channel
// loops) with some ingests (adapters).
func BenchmarkMixedParallel(b *testing.B) {
	for _, single := range []bool{false, true} {
		name := "readPool"
		if single {
			name = "singleConn"
		}
		b.Run(name, func(b *testing.B) {
			s := benchStore(b)
			if single {
				s.reader.Close()
				s.reader = s.writer
			}
			ctx := context.Background()
			for c := range 8 {
				fill(b, s, fmt.Sprint("c", c), 200)
			}
			var n atomic.Int64
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := int(n.Add(1))
					ch := fmt.Sprint("c", i%8)
					var err error
					if i%5 == 0 {
						_, _, err = s.Ingest(ctx, benchMsg(ch, i))
					} else {
						_, _, err = s.History(ctx, ch, 20)
					}
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkHistory reads the 20-message window of channels of growing
// size: the cost follows the window, not the channel.
func BenchmarkHistory(b *testing.B) {
	for _, n := range []int{100, 10_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := benchStore(b)
			fill(b, s, "c", n)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				msgs, total, err := s.History(ctx, "c", 20)
				if err != nil || len(msgs) != 20 || total != n {
					b.Fatal(len(msgs), total, err)
				}
			}
		})
	}
}

// BenchmarkRepeatCheck compares the two reads the send handler's repeat
// check can make on a channel with a long history, half of it the bot's
// own: the newest 100 history messages with every column, or only the
// bot's own five newest among them.
func BenchmarkRepeatCheck(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	fill(b, s, "c", 200)
	for i := range 200 {
		m := benchMsg("c", 1000+i)
		m.Self = i%2 == 0
		if _, _, err := s.Ingest(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
	unread, err := s.Unread(ctx, "c", 0)
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]int64, len(unread))
	for i, m := range unread {
		ids[i] = m.ID
	}
	if err := s.MarkRead(ctx, ids); err != nil {
		b.Fatal(err)
	}
	b.Run("history", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if h, _, err := s.History(ctx, "c", 100); err != nil || len(h) != 100 {
				b.Fatal(len(h), err)
			}
		}
	})
	b.Run("recent own", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if own, err := s.RecentOwn(ctx, "c", 100, 5); err != nil || len(own) != 5 {
				b.Fatal(len(own), err)
			}
		}
	})
}
