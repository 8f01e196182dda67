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
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/airi-go/airi/adapters/satori/satoritest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run serves until ctx ends. Exit codes: 0 stopped, 2 bad flags.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakesatori", flag.ContinueOnError)
	fs.SetOutput(stderr)
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
			fmt.Fprintf(stderr, "fakesatori: login %q: want platform:userId\n", l)
			return 2
		}
		opts.Logins = append(opts.Logins, satoritest.Login{Platform: p, UserID: id, Name: id})
	}
	srv := satoritest.NewServer(opts)
	defer srv.Close()
	fmt.Fprintln(stdout, srv.URL())
	fmt.Fprintln(stdout, srv.WSURL())
	<-ctx.Done()
	return 0
}
