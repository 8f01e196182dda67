package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airi-go/airi/internal/rusage"
	"github.com/airi-go/airi/state"
)

// runtimeTick is the store work the runtime does for one message in a
// private chat answered by one send: the ingest and its decision, the
// tick's reads, the read mark, the send through the outbox, the action
// and tick records, as the scheduler and the send handler ask for them.
func runtimeTick(ctx context.Context, s *Store, ch state.Channel, i int, req []state.ChatMessage) error {
	if _, err := s.Channel(ctx, ch.ID); err != nil {
		return err
	}
	in, _, err := s.Ingest(ctx, benchMsg(ch.ID, i))
	if err != nil {
		return err
	}
	if err := s.SetDecision(ctx, []int64{in.ID}, "direct"); err != nil {
		return err
	}
	if _, err := s.ChannelControl(ctx, ch.ID); err != nil {
		return err
	}
	if _, err := s.Channel(ctx, ch.ID); err != nil {
		return err
	}
	unread, err := s.Unread(ctx, ch.ID, 20)
	if err != nil {
		return err
	}
	if _, _, err := s.History(ctx, ch.ID, 20); err != nil {
		return err
	}
	if _, err := s.Actions(ctx, ch.ID, 20); err != nil {
		return err
	}
	watermark, err := s.LastMessageID(ctx, ch.ID)
	if err != nil {
		return err
	}
	if _, err := s.Notes(ctx, state.NoteFilter{Scope: state.ScopeUser, Subject: "u1"}); err != nil {
		return err
	}
	ids := make([]int64, len(unread))
	for i, m := range unread {
		ids[i] = m.ID
	}
	if err := s.MarkRead(ctx, ids); err != nil {
		return err
	}
	if _, err := s.CountUnreadAfter(ctx, ch.ID, watermark); err != nil {
		return err
	}
	if _, err := s.RecentOwn(ctx, ch.ID, 100, 5); err != nil {
		return err
	}
	id, err := s.AddOutbox(ctx, state.OutboxEntry{ChannelID: ch.ID, Content: "hello there"})
	if err != nil {
		return err
	}
	if err := s.RecordSent(ctx, id, fmt.Sprint("s", i), "", state.Message{ChannelID: ch.ID, PlatformID: fmt.Sprint("s", i), SenderID: "bot",
		SenderName: "airi", Self: true, Content: "hello there", Time: time.Unix(1_700_000_000+int64(i), 0)}); err != nil {
		return err
	}
	action := json.RawMessage(`{"action":"send_message","channelId":"c","content":"hello there"}`)
	if _, _, err := s.RecordTick(ctx, &state.ActionRecord{ChannelID: ch.ID, Wake: 1, Action: action, Name: "send_message",
		OK: true, Result: "sent", Time: time.Unix(1_700_000_000, 0)}, 20, 50, state.Tick{ChannelID: ch.ID, Wake: 1, Trigger: "direct", Now: time.Unix(1_700_000_000, 0),
		Request: req, Raw: string(action), Usage: state.Usage{PromptTokens: 1500, CompletionTokens: 40},
		LatencyMS: 900, Action: action, Result: "sent", OK: true, Effects: json.RawMessage(`[{"sent":1}]`)}); err != nil {
		return err
	}
	_, err = s.CountUnreadAfter(ctx, ch.ID, watermark)
	return err
}

// BenchmarkRuntimeTick is the store work of one message answered in a
// private chat (runtimeTick), on one channel loop after another, and on
// eight at once as in a burst of chats; it reports the statements and
// transactions per tick, and the process CPU per tick (which, unlike the
// time per tick, leaves out waiting for the disk).
func BenchmarkRuntimeTick(b *testing.B) {
	for _, loops := range []int{1, 8} {
		b.Run(fmt.Sprintf("loops=%d", loops), func(b *testing.B) {
			s := benchStore(b)
			ctx := context.Background()
			req := sampleRequest()
			chans := make([]state.Channel, loops)
			for c := range chans {
				chans[c] = state.Channel{ID: fmt.Sprint(100 + c), Platform: "telegram", NativeID: fmt.Sprint(100 + c), Title: "Ann"}
				if err := s.UpsertChannel(ctx, chans[c]); err != nil {
					b.Fatal(err)
				}
				fill(b, s, chans[c].ID, 200)
			}
			w0, cpu0 := s.Work(), rusage.CPU()
			var n, next atomic.Int64
			b.ReportAllocs()
			if loops == 1 {
				for b.Loop() {
					if err := runtimeTick(ctx, s, chans[0], int(n.Add(1)), req); err != nil {
						b.Fatal(err)
					}
				}
			} else {
				// Exactly loops goroutines, one per channel, share the
				// b.N ticks, whatever the number of cores.
				b.ResetTimer() // not the filling of the channels above
				var wg sync.WaitGroup
				for _, ch := range chans {
					wg.Go(func() {
						for next.Add(1) <= int64(b.N) {
							if err := runtimeTick(ctx, s, ch, int(n.Add(1)), req); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
			}
			w, cpu := s.Work(), rusage.CPU()-cpu0
			ops := float64(b.N)
			b.ReportMetric(float64(cpu.Nanoseconds())/ops, "cpu-ns/op")
			b.ReportMetric(float64(w.Statements-w0.Statements)/ops, "stmts/op")
			b.ReportMetric(float64(w.Writes-w0.Writes)/ops, "writetx/op")
			b.ReportMetric(float64(w.Reads-w0.Reads)/ops, "readtx/op")
		})
	}
}
