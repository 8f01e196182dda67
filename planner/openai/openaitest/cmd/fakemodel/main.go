// Command fakemodel is a fake OpenAI-compatible Chat Completions endpoint
// for end-to-end tests of the built airi binary. It listens on 127.0.0.1,
// prints its API root (the value for LLM_API_BASE_URL, ending in /v1) as
// the first line of stdout, and serves until SIGINT or SIGTERM.
//
// Usage:
//
//	fakemodel [--addr 127.0.0.1:0] [--script | --reply TEXT] [--echo-all]
//	          [--faults RATE] [--seed N] [--retry-after SECONDS]
//	          [--key KEY] [--model NAME] [--log FILE]
//
// Policy. With --script (the default) every request is answered by the
// echo policy of openaitest.Echo: it reads the state message (the last user
// message) loosely; when it lists new messages it answers
// {"action":"send_message","channelId":C,"content":"echo: TEXT"} with the
// newest message's text (all of them, joined by " / ", with --echo-all);
// when the state says more messages are unread it answers
// read_unread_messages; when nothing is new but the history ends with
// other people's turns that got no reply (a tick whose answer failed), it
// echoes the newest of those; otherwise it answers {"action":"continue"}.
// The channel C is the request's user field without "airi:", else the
// first `channel id "X"` or `Channel "X"` in the state then the system
// message, else the channelId of the newest assistant turn, else
// "console". With --reply every request gets the same text.
//
// Faults. --faults RATE (a fraction such as 0.2, or 20%) replaces about
// that share of the answers with a fault drawn evenly from: 429 with
// Retry-After (--retry-after, default 1 second), 500, a hang until the
// client gives up, and prose instead of a JSON action. The draws come from
// a generator seeded with --seed, so a run with the same seed and the same
// order of requests sees the same faults. A hang lasts until the client's
// timeout, so give airi a short LLM_TIMEOUT (1s, say) when injecting faults.
//
// --key requires that bearer token (others get 401), --model serves only
// that model name (others get 404), and --log appends one JSON line per
// request the policy answered: {"call", "user", "messages", "reply",
// "content"} where reply is "answer", "rate_limit", "server", "hang" or
// "prose" (requests refused for their key or model are not logged).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/airi-go/airi/planner/openai/openaitest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakemodel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on (loopback only; a bare port means 127.0.0.1:PORT)")
	_ = fs.Bool("script", true, "answer with the echo policy (the default)")
	reply := fs.String("reply", "", "answer every request with this text instead of the echo policy")
	echoAll := fs.Bool("echo-all", false, "echo every new message of a tick, not only the newest")
	faults := fs.String("faults", "0", "share of answers replaced by a fault: 0.2 or 20%")
	seed := fs.Uint64("seed", 1, "seed of the fault draws")
	retryAfter := fs.String("retry-after", "1", "Retry-After of the 429 fault, in seconds")
	key := fs.String("key", "", "require this API key")
	model := fs.String("model", "", "serve only this model name")
	logPath := fs.String("log", "", "append one JSON line per request to this file")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "fakemodel: unexpected arguments %q\n", fs.Args())
		return 2
	}
	rate, err := openaitest.ParseFaultRate(*faults)
	if err != nil || rate < 0 || rate > 1 {
		fmt.Fprintf(stderr, "fakemodel: --faults %q must be a fraction between 0 and 1 or a percentage\n", *faults)
		return 2
	}
	listenAddr, err := loopback(*addr)
	if err != nil {
		fmt.Fprintf(stderr, "fakemodel: --addr: %v\n", err)
		return 2
	}

	var answer openaitest.AnswerFunc
	if *reply != "" {
		text := *reply
		answer = func(context.Context, openaitest.Request) openaitest.Reply { return openaitest.Text(text) }
	} else {
		answer = openaitest.Echo(openaitest.EchoOptions{All: *echoAll})
	}
	if rate > 0 {
		answer = openaitest.Faults(answer, openaitest.FaultOptions{Rate: rate, Seed: *seed, RetryAfter: *retryAfter})
	}
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "fakemodel: --log: %v\n", err)
			return 1
		}
		defer f.Close()
		answer = logged(answer, f)
	}

	var opts []openaitest.Option
	if *key != "" {
		opts = append(opts, openaitest.WithAPIKey(*key))
	}
	if *model != "" {
		opts = append(opts, openaitest.WithModels(*model))
	}
	h := openaitest.NewHandler(answer, opts...)

	ln, err := net.Listen("tcp", listenAddr)
	if err != nil {
		fmt.Fprintf(stderr, "fakemodel: listen: %v\n", err)
		return 1
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "http://%s/v1\n", ln.Addr())
	if f, ok := stdout.(interface{ Sync() error }); ok {
		_ = f.Sync()
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintf(stderr, "fakemodel: serve: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	h.Close() // release hanging requests
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		fmt.Fprintf(stderr, "fakemodel: shutdown: %v\n", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "fakemodel: serve: %v\n", err)
		return 1
	}
	return 0
}

// loopback turns the --addr value into a loopback listen address.
func loopback(addr string) (string, error) {
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	switch host {
	case "", "127.0.0.1", "localhost":
		return net.JoinHostPort("127.0.0.1", port), nil
	}
	return "", fmt.Errorf("%q is not a loopback address; use 127.0.0.1:PORT", addr)
}

// logged writes one JSON line per request, with the kind of reply given.
func logged(next openaitest.AnswerFunc, w io.Writer) openaitest.AnswerFunc {
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return func(ctx context.Context, req openaitest.Request) openaitest.Reply {
		r := next(ctx, req)
		kind := "answer"
		switch {
		case r.Status == http.StatusTooManyRequests:
			kind = openaitest.FaultRateLimit
		case r.Status >= 500:
			kind = openaitest.FaultServer
		case r.Status != 0:
			kind = fmt.Sprint(r.Status)
		case r.Hang:
			kind = openaitest.FaultHang
		case r.Malformed:
			kind = "malformed"
		case !strings.HasPrefix(strings.TrimSpace(r.Content), "{"):
			kind = openaitest.FaultProse
		}
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(map[string]any{
			"call": req.Call, "user": req.User, "messages": req.Messages, "reply": kind, "content": r.Content,
		})
		return r
	}
}
