package telegram

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mymmrac/telego"
	"go.uber.org/zap"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/state"
)

type discardInbox struct{ n int }

func (d *discardInbox) Deliver(context.Context, state.Channel, state.Message) error {
	d.n++
	return nil
}

// BenchmarkConvert measures turning one group message with a mention into
// the runtime's channel and message.
func BenchmarkConvert(b *testing.B) {
	a, err := New(Config{Token: telegramtest.DefaultToken}, nil, zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	a.me = telego.User{ID: 7, Username: "airi_test_bot"}
	m := &telego.Message{
		MessageID: 12, Date: time.Now().Unix(),
		Chat:     telego.Chat{ID: -1001234567890, Type: "supergroup", Title: "Owls"},
		From:     &telego.User{ID: 5, FirstName: "Ann", LastName: "Lee"},
		Text:     "hey @airi_test_bot, what do you think about this long-ish message? 😀",
		Entities: []telego.MessageEntity{{Type: "mention", Offset: 4, Length: 14}},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, msg, ok := a.convert(m); !ok || !msg.Mentioned {
			b.Fatal("not converted")
		}
	}
}

// BenchmarkPollBatch measures one getUpdates round trip with 100 queued
// messages against the fake server on loopback, delivered one by one.
func BenchmarkPollBatch(b *testing.B) {
	srv := telegramtest.Start(telegramtest.Options{})
	defer srv.Close()
	a, err := New(Config{Token: srv.Token(), APIBaseURL: srv.URL(), PollTimeout: time.Second}, nil, zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	defer a.ownHTTP.CloseIdleConnections()
	ctx := context.Background()
	if err := a.Connect(ctx); err != nil {
		b.Fatal(err)
	}
	user := telegramtest.User{ID: 5, FirstName: "Ann"}
	chat := telegramtest.Chat{ID: -100500, Type: telegramtest.Supergroup, Title: "Owls"}
	inbox := &discardInbox{}
	offset := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		for range 100 {
			srv.Post(telegramtest.Incoming{Chat: chat, From: user, Text: "hello @airi_test_bot"})
		}
		b.StartTimer()
		offset, err = a.Poll(ctx, inbox, offset)
		if err != nil {
			b.Fatal(err)
		}
	}
	if inbox.n != 100*b.N {
		b.Fatalf("delivered %d of %d", inbox.n, 100*b.N)
	}
}

// BenchmarkSend measures one short send (markdown to HTML, sendMessage)
// against the fake server on loopback.
func BenchmarkSend(b *testing.B) {
	srv := telegramtest.Start(telegramtest.Options{})
	defer srv.Close()
	a, err := New(Config{Token: srv.Token(), APIBaseURL: srv.URL()}, nil, zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	defer a.ownHTTP.CloseIdleConnections()
	srv.Post(telegramtest.Incoming{From: telegramtest.User{ID: 5, FirstName: "Ann"}, Text: "hi"})
	ctx := context.Background()
	out := state.Outgoing{ChannelID: "5", Content: "Sure, *tomorrow* at `9:00` works & I'll bring tea."}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Send(ctx, out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSendBurst measures the sends of a burst: 8 chats (the default
// number of model slots) answered at once, each send from a goroutine of
// its own as the runtime's wakes send, against the fake server on
// loopback. It reports the connections opened per send.
func BenchmarkSendBurst(b *testing.B) {
	const chats = 8
	srv := telegramtest.NewServer(telegramtest.Options{})
	hs := httptest.NewUnstartedServer(srv)
	var conns atomic.Int64
	hs.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	hs.Start()
	defer hs.Close()
	a, err := New(Config{Token: srv.Token(), APIBaseURL: hs.URL}, nil, zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	defer a.ownHTTP.CloseIdleConnections()
	for i := range chats {
		srv.Post(telegramtest.Incoming{From: telegramtest.User{ID: int64(5 + i), FirstName: "Ann"}, Text: "hi"})
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		var wg sync.WaitGroup
		errs := make(chan error, chats)
		for i := range chats {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out := state.Outgoing{ChannelID: strconv.Itoa(5 + i), Content: "Sure, *tomorrow* at `9:00` works & I'll bring tea."}
				if _, err := a.Send(ctx, out); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(conns.Load())/float64(b.N*chats), "conns/send")
}
