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
	"io"
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run serves until ctx ends; the base URL is the first line on stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakebotapi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen address (loopback only)")
	token := fs.String("token", telegramtest.DefaultToken, "the bot token the server accepts")
	username := fs.String("username", "airi_test_bot", "the bot's username")
	readAll := fs.Bool("read-all", false, "report group privacy mode off (can_read_all_group_messages)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || (host != "127.0.0.1" && host != "localhost" && host != "::1") {
		fmt.Fprintln(stderr, "fakebotapi: -addr must be a loopback address such as 127.0.0.1:0")
		return 2
	}
	srv := telegramtest.NewServer(telegramtest.Options{
		Token:                *token,
		Bot:                  telegramtest.User{ID: 7000001, FirstName: "Airi", Username: strings.TrimPrefix(*username, "@")},
		ReadAllGroupMessages: *readAll,
	})
	defer srv.Close() // stops posting to a webhook
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "fakebotapi: listen:", err)
		return 1
	}
	fmt.Fprintf(stdout, "http://%s\n", ln.Addr())
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintln(stderr, "fakebotapi: serve:", err)
		return 1
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		// Long polls still waiting: cut them.
		_ = hs.Close()
		if !errors.Is(err, context.DeadlineExceeded) {
			fmt.Fprintln(stderr, "fakebotapi: shutdown:", err)
		}
	}
	<-errc
	return 0
}
