// Command fakesatori runs the fake Satori server of package satoritest for
// end-to-end tests of the built binary. It listens on 127.0.0.1 at a free
// port and prints its root URL on the first line of stdout and the event
// stream URL on the second; it runs until interrupted.
//
// Endpoints under the root: /satori/v1/events (WebSocket),
// /satori/v1/message.create, and the control API: POST /_control/messages
// (inject a message, JSON fields of satoritest.Message), GET /_control/sent
// (messages the client created), GET /_control/identifies, POST
// /_control/drop, POST /_control/fail-sends?n=&status=, POST
// /_control/pongs?stop=true|false.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/airi-go/airi/adapters/satori/satoritest"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("fakesatori", flag.ContinueOnError)
	legacy := fs.Bool("legacy", false, "speak the older protocol revision (id, self_id, X-Platform/X-Self-ID)")
	token := fs.String("token", "", "token required in IDENTIFY and as Bearer token")
	logins := fs.String("logins", "test:bot", "comma-separated platform:userId logins")
	echo := fs.Bool("echo", false, "echo created messages back as events from the bot")
	path := fs.String("path", "", `endpoint prefix ("" = /satori, "/" = none)`)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	opts := satoritest.Options{Token: *token, Echo: *echo, Path: *path}
	if *legacy {
		opts.Revision = satoritest.Legacy
	}
	for _, l := range strings.Split(*logins, ",") {
		p, id, ok := strings.Cut(strings.TrimSpace(l), ":")
		if !ok || p == "" || id == "" {
			fmt.Fprintf(os.Stderr, "fakesatori: login %q: want platform:userId\n", l)
			return 2
		}
		opts.Logins = append(opts.Logins, satoritest.Login{Platform: p, UserID: id, Name: id})
	}
	srv := satoritest.NewServer(opts)
	defer srv.Close()
	fmt.Println(srv.URL())
	fmt.Println(srv.WSURL())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	return 0
}
