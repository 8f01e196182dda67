package main

import (
	"encoding/json"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/adapters/telegram/telegramtest"
	"github.com/airi-go/airi/admin"
	"github.com/airi-go/airi/planner/openai/openaitest"
)

// restartable serves a fake Bot API that can be stopped and started again
// on the same address, keeping its state.
type restartable struct {
	t    *testing.T
	tg   *telegramtest.Server
	addr string
	srv  *http.Server
	done chan struct{}
}

func (r *restartable) start() {
	r.t.Helper()
	var ln net.Listener
	var err error
	for range 50 {
		if ln, err = net.Listen("tcp", r.addr); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond) // the port is released asynchronously by the kernel
	}
	if err != nil {
		r.t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	r.srv = &http.Server{Handler: r.tg}
	r.done = make(chan struct{})
	go func() {
		defer close(r.done)
		_ = r.srv.Serve(ln)
	}()
}

func (r *restartable) stop() {
	_ = r.srv.Close()
	<-r.done
}

func (r *restartable) url() string { return "http://" + r.addr }

// readyz returns the status code of the bot's /readyz (0 when unreachable).
func readyz(addr string) (int, string) {
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	var body admin.Readiness
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body.Status
}

func airiHealth(t *testing.T, addr string) int {
	t.Helper()
	cmd := exec.Command(airiBinary(t), "health", "--addr", addr)
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// TestRunLogsAndReadiness runs the bot against the fake Bot API: one log
// line per message received and sent, without the text; with the Bot API
// stopped /readyz answers 503 and `airi health` exits 1, and both recover
// when it is back.
func TestRunLogsAndReadiness(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	tg := &restartable{t: t, tg: telegramtest.NewServer(telegramtest.Options{ReadAllGroupMessages: true}), addr: "127.0.0.1:0"}
	tg.start()
	defer tg.stop()
	model := openaitest.NewServer(t, ackModel(telegramTexts(tg.tg), nil))
	admin := freeAddr(t)
	env := botEnv(model.URL(), dbIn(t), "TELEGRAM_BOT_TOKEN="+tg.tg.Token(), "TELEGRAM_API_BASE_URL="+tg.url(), "AIRI_ADMIN_ADDR="+admin)
	bot := startBot(t, env)

	ann := telegramtest.User{ID: 501, FirstName: "Ann"}
	tg.tg.Post(telegramtest.Incoming{Chat: telegramtest.PrivateChat(ann), From: ann, Text: "my secret plan tok-1"})
	waitUntil(t, "the message is answered", bot, func() bool { return allAcked(ackCounts(telegramTexts(tg.tg)()), 1) })
	waitUntil(t, "the send is logged", bot, func() bool { return strings.Contains(bot.stderr.String(), `"message sent"`) })
	var received, sent int
	for _, line := range strings.Split(bot.stderr.String(), "\n") {
		if strings.Contains(line, "secret") {
			t.Errorf("a log line holds the message text: %s", line)
		}
		switch {
		case strings.Contains(line, `"msg":"message received"`):
			received++
			if !strings.Contains(line, `"sender":"telegram:501"`) || !strings.Contains(line, `"chars":20`) {
				t.Errorf("received line lacks sender or length: %s", line)
			}
		case strings.Contains(line, `"msg":"message sent"`):
			sent++
		}
	}
	if received != 1 || sent != 1 {
		t.Errorf("%d received and %d sent lines, want 1 and 1:\n%s", received, sent, bot.stderr.String())
	}

	waitUntil(t, "ready", bot, func() bool { code, _ := readyz(admin); return code == http.StatusOK })
	if code := airiHealth(t, admin); code != exitOK {
		t.Fatalf("airi health exit %d while ready", code)
	}
	tg.stop()
	waitUntil(t, "readyz fails with the Bot API gone", bot, func() bool { code, _ := readyz(admin); return code == http.StatusServiceUnavailable })
	if code := airiHealth(t, admin); code != exitFailure {
		t.Errorf("airi health exit %d with the Bot API gone, want 1", code)
	}
	tg.start()
	waitUntil(t, "readyz recovers", bot, func() bool { code, _ := readyz(admin); return code == http.StatusOK })
	if code := airiHealth(t, admin); code != exitOK {
		t.Errorf("airi health exit %d after recovery", code)
	}
	bot.stop(t)
}
