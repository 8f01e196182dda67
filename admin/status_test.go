package admin

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"
)

// TestStatusStripOnEveryPage checks that every page but the sign-in form
// carries the status strip, with the banner while the model is failing,
// and that what it shows is escaped.
func TestStatusStripOnEveryPage(t *testing.T) {
	st, tick := seedAdminStore(t)
	var alert string
	s := New(Options{Store: st, Metrics: NewMetrics(func() float64 { return 0 }), Logger: zaptest.NewLogger(t),
		Checks: func(context.Context) []Check {
			return []Check{{Name: "store", OK: true, Detail: "writes succeed"}, {Name: "telegram", OK: true, Detail: "connected"},
				{Name: "model", Detail: "dial tcp 127.0.0.1:1: connection refused <b>"}}
		},
		Status: func(context.Context) Status {
			return Status{Facts: []Check{{Name: "prompts", OK: true, Detail: "PROMPTS_DIR /srv/prompts"},
				{Name: "budget", OK: true, Detail: "120 of 8000 tokens today (1%)"}}, Alert: alert}
		}})
	base := startAdmin(t, s)

	for _, path := range []string{"/", "/channels/c1", "/search?q=x", "/ticks/" + strconv.FormatInt(tick.ID, 10)} {
		t.Run(path, func(t *testing.T) {
			for _, a := range []string{"", "The model is failing: <i>refused</i>"} {
				alert = a
				resp, body := (adminReq{path: path}).do(t, base)
				if resp.StatusCode != 200 {
					t.Fatalf("status %d: %s", resp.StatusCode, body)
				}
				for _, want := range []string{`<ul class="status"`, `data-name="telegram"`, `<li class="fail" data-name="model">`,
					"connection refused &lt;b&gt;", "PROMPTS_DIR /srv/prompts", "120 of 8000 tokens today"} {
					if !strings.Contains(body, want) {
						t.Errorf("page lacks %q", want)
					}
				}
				if banner := strings.Contains(body, `<p class="banner" role="alert">The model is failing: &lt;i&gt;refused&lt;/i&gt;</p>`); banner != (a != "") {
					t.Errorf("banner shown = %v with alert %q", banner, a)
				}
			}
		})
	}
	guarded := startAdmin(t, New(Options{Token: "0123456789abcdef", Store: st, Metrics: NewMetrics(func() float64 { return 0 }),
		Logger: zaptest.NewLogger(t), Status: func(context.Context) Status { return Status{Alert: "failing"} }}))
	resp, body := (adminReq{path: "/login"}).do(t, guarded)
	if resp.StatusCode != 200 || strings.Contains(body, `class="status"`) || strings.Contains(body, "banner") {
		t.Errorf("the sign-in form (status %d) shows the status strip:\n%s", resp.StatusCode, body)
	}
}

func TestStatusStripAgreesWithTheBanner(t *testing.T) {
	s := &Server{
		checks: func(context.Context) []Check { return []Check{{Name: "model", OK: true, Detail: "serving"}} },
		facts:  func(context.Context) Status { return Status{Alert: "The model is failing"} },
	}
	got := s.status(context.Background())
	if len(got.Items) != 1 || got.Items[0].OK || got.Alert == "" {
		t.Errorf("status while the model fails = %+v", got)
	}
}
