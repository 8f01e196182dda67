// Command fakebotapi runs the fake Telegram Bot API server of package
// telegramtest as a process, for end-to-end tests of the built binary. It
// listens on 127.0.0.1, prints its base URL as the first line of stdout,
// and serves until SIGINT or SIGTERM. Tests drive it through the control
// API (/_control/message, /_control/sent, ...; see telegramtest).
//
//	fakebotapi [-addr 127.0.0.1:0] [-token TOKEN] [-username NAME] [-read-all]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("fakebotapi", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address (loopback only)")
	token := fs.String("token", telegramtest.DefaultToken, "the bot token the server accepts")
	username := fs.String("username", "airi_test_bot", "the bot's username")
	readAll := fs.Bool("read-all", false, "report group privacy mode off (can_read_all_group_messages)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || (host != "127.0.0.1" && host != "localhost" && host != "::1") {
		fmt.Fprintln(os.Stderr, "fakebotapi: -addr must be a loopback address such as 127.0.0.1:0")
		return 2
	}
	srv := telegramtest.NewServer(telegramtest.Options{
		Token:                *token,
		Bot:                  telegramtest.User{ID: 7000001, FirstName: "Airi", Username: strings.TrimPrefix(*username, "@")},
		ReadAllGroupMessages: *readAll,
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakebotapi: listen:", err)
		return 1
	}
	fmt.Printf("http://%s\n", ln.Addr())
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintln(os.Stderr, "fakebotapi: serve:", err)
		return 1
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		// Long polls still waiting: cut them.
		_ = hs.Close()
		if !errors.Is(err, context.DeadlineExceeded) {
			fmt.Fprintln(os.Stderr, "fakebotapi: shutdown:", err)
		}
	}
	<-errc
	return 0
}
