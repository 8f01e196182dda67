// Package admin is the admin server of a running bot: the health and
// readiness checks, the Prometheus metrics, Go's profiles and the
// inspector's pages (package inspector), behind the admin token. It reads
// what it shows through small interfaces and functions; it never changes
// the bot.
package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"

	"github.com/airi-go/airi/admin/inspector"
	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state"
)

// Metrics are the bot's Prometheus series, on a registry of their own.
type Metrics struct {
	reg          *prometheus.Registry
	ticks        *prometheus.CounterVec
	actions      *prometheus.CounterVec
	parseFails   prometheus.Counter
	modelErrors  prometheus.Counter
	modelLatency prometheus.Histogram
	tokens       *prometheus.CounterVec
	wakes        *prometheus.CounterVec
	skipped      *prometheus.CounterVec
	reactions    *prometheus.CounterVec
	toolCalls    *prometheus.CounterVec
	toolLatency  *prometheus.HistogramVec
	media        *prometheus.CounterVec
	mediaBytes   prometheus.Counter
}

// NewMetrics makes the series; unread counts the unread messages of
// every channel when they are scraped.
func NewMetrics(unread func() float64) *Metrics {
	m := &Metrics{
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
		reactions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "airi_reactions_total",
			Help: "Reactions people and other bots put on messages, by outcome (received: on the bot's, ignored: on anyone else's)."}, []string{"outcome"}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "airi_tool_calls_total",
			Help: "MCP tool calls, by tool and outcome (ok, error, timeout, refused, unavailable)."}, []string{"tool", "outcome"}),
		toolLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "airi_tool_latency_seconds", Help: "MCP tool call latency, by tool.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 12)}, []string{"tool"}),
		media: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "airi_media_total",
			Help: "Attachments looked at, by kind and outcome (described, transcribed, read, fetched, cached, too_large, too_long, foreign, budget, failed)."}, []string{"kind", "outcome"}),
		mediaBytes: prometheus.NewCounter(prometheus.CounterOpts{Name: "airi_media_fetched_bytes_total", Help: "Bytes of attachments fetched from the platforms."}),
	}
	m.reg.MustRegister(m.ticks, m.actions, m.parseFails, m.modelErrors, m.modelLatency, m.tokens, m.wakes, m.skipped, m.reactions,
		m.toolCalls, m.toolLatency, m.media, m.mediaBytes,
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

// Wake counts a wake that ran, by its reason.
func (m *Metrics) Wake(reason string) { m.wakes.WithLabelValues(reason).Inc() }

// Skip counts a wake or call refused, by its reason.
func (m *Metrics) Skip(reason string) { m.skipped.WithLabelValues(reason).Inc() }

// Reaction counts a reaction delivered by an adapter, by its outcome.
func (m *Metrics) Reaction(outcome string) { m.reactions.WithLabelValues(outcome).Inc() }

// Media counts an attachment looked at, by kind and outcome ("cached"
// is a cache hit), and the bytes fetched for it.
func (m *Metrics) Media(kind, outcome string, bytes int64) {
	m.media.WithLabelValues(kind, outcome).Inc()
	if bytes > 0 {
		m.mediaBytes.Add(float64(bytes))
	}
}

// ToolCall counts one MCP tool call by its outcome and observes its
// latency (a refused call ran nothing and has none).
func (m *Metrics) ToolCall(tool, outcome string, d time.Duration) {
	m.toolCalls.WithLabelValues(tool, outcome).Inc()
	if outcome != "refused" {
		m.toolLatency.WithLabelValues(tool).Observe(d.Seconds())
	}
}

// RegisterBudget adds the budgets' use today and their limits, for the
// channels that channels lists.
func (m *Metrics) RegisterBudget(t *budget.Tracker, channels func() []string, now func() time.Time) {
	m.reg.MustRegister(newBudgetCollector(t, channels, now))
}

// Observe counts one recorded tick.
func (m *Metrics) Observe(t state.Tick) {
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

// Server is the admin server: health, metrics, profiles and the
// inspector's pages, behind the admin token.
type Server struct {
	token string
	store inspector.Store
	// badges, when set, tells the channels page what else is known of a
	// channel (its attention mode, its budget use).
	badges  func(ctx context.Context, ch state.Channel) []inspector.Badge
	metrics *Metrics
	// checks are the readiness checks of /readyz.
	checks func(ctx context.Context) []Check
	// facts are shown in the inspector's status strip after the checks.
	facts func(ctx context.Context) Status
	log   *zap.Logger
}

// Options are what the admin server shows.
type Options struct {
	// Token guards everything but the health checks; empty is for a
	// server on loopback only (see CheckAddr).
	Token string
	// Store is what the inspector's pages read.
	Store   inspector.Store
	Metrics *Metrics
	// Checks are the readiness checks of /readyz; nil reports none.
	Checks func(ctx context.Context) []Check
	// Badges, when set, tells the channels page what else is known of a
	// channel (its attention mode, its budget use).
	Badges func(ctx context.Context, ch state.Channel) []inspector.Badge
	// Status, when set, adds to the inspector's status strip what the
	// checks do not say, and the banner while the model is failing.
	Status func(ctx context.Context) Status
	Logger *zap.Logger
}

// New returns the admin server.
func New(opt Options) *Server {
	log := opt.Logger
	if log == nil {
		log = zap.NewNop()
	}
	return &Server{token: opt.Token, store: opt.Store, badges: opt.Badges, metrics: opt.Metrics, checks: opt.Checks, facts: opt.Status, log: log}
}

// MinTokenLength is the shortest admin token accepted for a server
// reachable beyond loopback: a short one is guessed in minutes.
const MinTokenLength = 16

// CheckAddr refuses an admin server reachable beyond loopback without a
// token, or with one shorter than MinTokenLength.
func CheckAddr(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("AIRI_ADMIN_ADDR=%q: want host:port: %w", addr, err)
	}
	if loopbackHost(host) {
		return nil
	}
	if token == "" {
		return fmt.Errorf("AIRI_ADMIN_ADDR=%q is reachable beyond this machine: set AIRI_ADMIN_TOKEN", addr)
	}
	if n := len([]rune(token)); n < MinTokenLength {
		return fmt.Errorf("AIRI_ADMIN_TOKEN is %d characters, and AIRI_ADMIN_ADDR=%q is reachable beyond this machine: use at least %d (openssl rand -hex 16)", n, addr, MinTokenLength)
	}
	return nil
}

// loopbackHost reports whether host names this machine only: localhost
// (and names under .localhost) or a loopback address.
func loopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// Handler serves the admin server's pages and endpoints.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	// healthz says the process is alive; readyz whether it works.
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("GET /metrics", s.auth(promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})))
	s.mountInspector(mux)
	registerProfiles(mux, s.auth)
	return mux
}

// loopbackOnly refuses, when there is no token, a request whose Host is
// not a loopback name or address: a server without a token listens on
// loopback only, and a page on another site that rebinds its own name to
// 127.0.0.1 would otherwise read the inspector through the browser.
func (s *Server) loopbackOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.token == "" {
			host := r.Host
			if h, _, err := net.SplitHostPort(host); err == nil {
				host = h
			}
			if !loopbackHost(host) {
				http.Error(w, "this admin server has no token and answers only to localhost or a loopback address, not Host "+fmt.Sprintf("%q", r.Host), http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// Serve runs the admin server on ln until ctx ends. Without a token it
// answers only requests addressed to a loopback name or address.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s.loopbackOnly(s.Handler()), ReadHeaderTimeout: 5 * time.Second}
	if err := ServeUntil(ctx, srv, ln, 2*time.Second); err != nil {
		return fmt.Errorf("admin server: %w", err)
	}
	return nil
}

// ServeUntil runs srv on ln until ctx ends, then shuts it down, letting
// requests in flight finish within grace.
func ServeUntil(ctx context.Context, srv *http.Server, ln net.Listener, grace time.Duration) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
		defer cancel()
		_ = srv.Shutdown(sctx)
		<-errc
		return nil
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}
