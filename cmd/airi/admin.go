package main

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"

	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state"
)

// metrics are the runtime's Prometheus series, on a registry of their own.
type metrics struct {
	reg          *prometheus.Registry
	ticks        *prometheus.CounterVec
	actions      *prometheus.CounterVec
	parseFails   prometheus.Counter
	modelErrors  prometheus.Counter
	modelLatency prometheus.Histogram
	tokens       *prometheus.CounterVec
	wakes        *prometheus.CounterVec
	skipped      *prometheus.CounterVec
}

func newMetrics(unread func() float64) *metrics {
	m := &metrics{
		reg:         prometheus.NewRegistry(),
		ticks:       prometheus.NewCounterVec(prometheus.CounterOpts{Name: "airi_ticks_total", Help: "Model calls, by trigger."}, []string{"trigger"}),
		actions:     prometheus.NewCounterVec(prometheus.CounterOpts{Name: "airi_actions_total", Help: "Actions run, by name."}, []string{"action"}),
		parseFails:  prometheus.NewCounter(prometheus.CounterOpts{Name: "airi_parse_failures_total", Help: "Answers that gave no valid action."}),
		modelErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "airi_model_errors_total", Help: "Model calls that failed or were interrupted."}),
		modelLatency: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "airi_model_latency_seconds", Help: "Model call latency.",
			Buckets: prometheus.ExponentialBuckets(0.1, 2, 10)}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "airi_tokens_total", Help: "Tokens, by kind (prompt, completion, cached)."}, []string{"kind"}),
		wakes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "airi_wakes_total",
			Help: "Wakes of a channel that ran, by reason (direct, addressed:mention, ambient, periodic, ...)."}, []string{"reason"}),
		skipped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "airi_wakes_skipped_total",
			Help: "Messages that woke nothing and wakes or calls refused, by reason (unaddressed, cooldown, budget, sender-rate, bot)."}, []string{"reason"}),
	}
	m.reg.MustRegister(m.ticks, m.actions, m.parseFails, m.modelErrors, m.modelLatency, m.tokens, m.wakes, m.skipped,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "airi_unread_messages", Help: "Unread messages in every channel."}, unread))
	return m
}

// budgetCollector reports each token budget's use today and its limit.
type budgetCollector struct {
	tracker  *budget.Tracker
	channels func() []string
	now      func() time.Time
	used     *prometheus.Desc
	limit    *prometheus.Desc
}

func newBudgetCollector(t *budget.Tracker, channels func() []string, now func() time.Time) *budgetCollector {
	return &budgetCollector{tracker: t, channels: channels, now: now,
		used:  prometheus.NewDesc("airi_budget_used_tokens", "Tokens used today of a budget, by scope (all, or a channel id).", []string{"scope"}, nil),
		limit: prometheus.NewDesc("airi_budget_limit_tokens", "Daily token budget, by scope (all, or a channel id).", []string{"scope"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *budgetCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.used; ch <- c.limit }

// Collect implements prometheus.Collector.
func (c *budgetCollector) Collect(ch chan<- prometheus.Metric) {
	for scope, v := range c.tracker.Use(context.Background(), c.now(), c.channels()) {
		if scope == budget.Global {
			scope = "all"
		}
		ch <- prometheus.MustNewConstMetric(c.used, prometheus.GaugeValue, float64(v[0]), scope)
		ch <- prometheus.MustNewConstMetric(c.limit, prometheus.GaugeValue, float64(v[1]), scope)
	}
}

// observe counts one recorded tick.
func (m *metrics) observe(t state.Tick) {
	m.ticks.WithLabelValues(t.Trigger).Inc()
	switch {
	case t.ModelError != "":
		m.modelErrors.Inc()
	case t.ParseError != "":
		m.parseFails.Inc()
	default:
		var a struct {
			Action string `json:"action"`
		}
		if json.Unmarshal(t.Action, &a) == nil {
			m.actions.WithLabelValues(a.Action).Inc()
		}
	}
	if t.LatencyMS > 0 {
		m.modelLatency.Observe(float64(t.LatencyMS) / 1000)
	}
	m.tokens.WithLabelValues("prompt").Add(float64(t.Usage.PromptTokens))
	m.tokens.WithLabelValues("completion").Add(float64(t.Usage.CompletionTokens))
	m.tokens.WithLabelValues("cached").Add(float64(t.Usage.CachedTokens))
}

// tickReader is what the inspector reads.
type tickReader interface {
	Ticks(ctx context.Context, f state.TickFilter) ([]state.Tick, error)
}

// adminServer serves health, metrics and the tick inspector.
type adminServer struct {
	token   string
	ticks   tickReader
	metrics *metrics
	ready   func() error
	log     *zap.Logger
}

// checkAdminAddr refuses an admin server reachable beyond loopback without a token.
func checkAdminAddr(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("AIRI_ADMIN_ADDR=%q: want host:port: %w", addr, err)
	}
	if token != "" {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("AIRI_ADMIN_ADDR=%q is reachable beyond this machine: set AIRI_ADMIN_TOKEN", addr)
}

func (s *adminServer) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if err := s.ready(); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			_ = json.NewEncoder(w).Encode(map[string]string{"status": "starting", "detail": err.Error()})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "ok"})
	})
	mux.Handle("GET /metrics", s.auth(promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})))
	mux.Handle("GET /ticks", s.auth(http.HandlerFunc(s.listTicks)))
	mux.Handle("GET /ticks/{id}", s.auth(http.HandlerFunc(s.showTick)))
	return mux
}

func (s *adminServer) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.token != "" {
			got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			if got == "" {
				got = r.URL.Query().Get("token")
			}
			if subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) != 1 {
				http.Error(w, "admin token required", http.StatusUnauthorized)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

var ticksPage = template.Must(template.New("ticks").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>airi ticks</title>
<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 8px;text-align:left;vertical-align:top}pre{white-space:pre-wrap;background:#f4f4f4;padding:8px}</style></head>
<body><h1>Recent ticks</h1><table><tr><th>id</th><th>time</th><th>channel</th><th>trigger</th><th>action</th><th>result</th><th>tokens</th><th>ms</th></tr>
{{range .}}<tr><td><a href="/ticks/{{.ID}}">{{.ID}}</a></td><td>{{.Now.Format "2006-01-02 15:04:05"}}</td><td>{{.ChannelID}}</td><td>{{.Trigger}}</td>
<td>{{if .ParseError}}parse error{{else if .ModelError}}model error{{else}}{{printf "%s" .Action}}{{end}}</td><td>{{.Result}}</td><td>{{.Usage.PromptTokens}}+{{.Usage.CompletionTokens}}</td><td>{{.LatencyMS}}</td></tr>
{{end}}</table></body></html>`))

var tickPage = template.Must(template.New("tick").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>tick {{.ID}}</title>
<style>body{font-family:sans-serif;margin:2em}pre{white-space:pre-wrap;background:#f4f4f4;padding:8px}</style></head>
<body><p><a href="/ticks">all ticks</a></p><h1>Tick {{.ID}} in {{.ChannelID}} ({{.Trigger}})</h1>
<p>{{.Now.Format "2006-01-02 15:04:05 MST"}} · {{.Usage.PromptTokens}} prompt + {{.Usage.CompletionTokens}} completion tokens ({{.Usage.CachedTokens}} cached) · {{.LatencyMS}} ms</p>
<h2>Request</h2>{{range .Layers}}<h3>{{.Title}}</h3>{{range .Parts}}{{with .Title}}<h4>{{.}}</h4>{{end}}<pre>{{.Text}}</pre>{{end}}{{end}}
<h2>Raw answer</h2><pre>{{.Raw}}</pre>{{if .Reasoning}}<h2>Reasoning</h2><pre>{{.Reasoning}}</pre>{{end}}
{{if .ModelError}}<h2>Model error</h2><pre>{{.ModelError}}</pre>{{end}}
{{if .ParseError}}<h2>Parse error</h2><pre>{{.ParseError}}</pre>{{else}}<h2>Action</h2><pre>{{printf "%s" .Action}}</pre>{{end}}
{{if .Notes}}<h2>Repair notes</h2><ul>{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
<h2>Result</h2><pre>{{.Result}}</pre>{{if .Effects}}<h2>Effects</h2><pre>{{printf "%s" .Effects}}</pre>{{end}}
</body></html>`))

// inspectorTicks is how many of the newest ticks the inspector lists.
const inspectorTicks = 100

func (s *adminServer) listTicks(w http.ResponseWriter, r *http.Request) {
	ticks, err := s.ticks.Ticks(r.Context(), state.TickFilter{Last: inspectorTicks})
	if err != nil {
		http.Error(w, "read ticks: "+err.Error(), http.StatusInternalServerError)
		return
	}
	for i, j := 0, len(ticks)-1; i < j; i, j = i+1, j-1 {
		ticks[i], ticks[j] = ticks[j], ticks[i]
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := ticksPage.Execute(w, ticks); err != nil {
		s.log.Warn("render tick list", zap.Error(err))
	}
}

func (s *adminServer) showTick(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		http.Error(w, "tick id must be a number", http.StatusBadRequest)
		return
	}
	ticks, err := s.ticks.Ticks(r.Context(), state.TickFilter{ID: id})
	if err != nil {
		http.Error(w, "read ticks: "+err.Error(), http.StatusInternalServerError)
		return
	}
	if len(ticks) == 0 {
		http.Error(w, "no such tick", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := tickPage.Execute(w, tickView{Tick: ticks[0], Layers: layers(ticks[0])}); err != nil {
		s.log.Warn("render tick", zap.Error(err))
	}
}

// tickView is a tick with its request split into layers and sections.
type tickView struct {
	state.Tick
	Layers []layer
}

// layer is one message of the request: the system message, a history
// turn, or the state message.
type layer struct {
	Title string
	Parts []part
}

type part struct {
	Title string
	Text  string
}

// layers splits each request message at the recorded section boundaries.
func layers(t state.Tick) []layer {
	out := make([]layer, 0, len(t.Request))
	for i, m := range t.Request {
		kind := "history"
		switch {
		case i == 0 && m.Role == "system":
			kind = "system"
		case i == len(t.Request)-1 && m.Role == "user":
			kind = "state"
		}
		l := layer{Title: fmt.Sprintf("%d · %s · %s", i, kind, m.Role)}
		for _, sec := range t.Sections {
			if sec.Message != i || sec.Start < 0 || sec.End > len(m.Content) || sec.Start > sec.End {
				continue
			}
			l.Parts = append(l.Parts, part{
				Title: fmt.Sprintf("%s · order %d · %s · %s", sec.Name, sec.Order, sec.Source, sec.Cache),
				Text:  m.Content[sec.Start:sec.End],
			})
		}
		if len(l.Parts) == 0 {
			l.Parts = []part{{Text: m.Content}}
		}
		out = append(out, l)
	}
	return out
}

// serve runs the admin server until ctx ends.
func (s *adminServer) serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s.handler(), ReadHeaderTimeout: 5 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		<-errc
		return nil
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("admin server: %w", err)
	}
}
