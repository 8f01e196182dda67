// Package satori connects the runtime to chat platforms through the
// Satori protocol (satori.chat), as served by Koishi and other bridges:
// a WebSocket event stream (IDENTIFY, READY, EVENT, PING/PONG, resume by
// sequence number) and the HTTP API (message.create).
package satori

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/adapters"
)

// Name is the adapter's platform name as channels record it.
const Name = "satori"

// Config holds the adapter's settings. Zero durations take defaults.
type Config struct {
	// WSURL is the event stream, e.g. ws://127.0.0.1:5140/satori/v1/events.
	WSURL string
	// APIBaseURL is the HTTP API base, e.g. http://127.0.0.1:5140/satori/v1;
	// derived from WSURL when empty.
	APIBaseURL string
	// Token is sent in IDENTIFY and as a Bearer token; empty means none.
	Token string
	// PingInterval is the time between PINGs [10s].
	PingInterval time.Duration
	// PongTimeout is how long a PING may stay unanswered before the
	// connection is treated as dead [20s].
	PongTimeout time.Duration
	// HTTPTimeout bounds one API request and the connection handshake [15s].
	HTTPTimeout time.Duration
	// MinBackoff and MaxBackoff bound the delay between reconnects and
	// between send retries [1s, 60s].
	MinBackoff time.Duration
	MaxBackoff time.Duration
	// SendAttempts is how many times a send is tried when it surely did
	// not go out (5xx, connection refused) [3].
	SendAttempts int
	// MediaHosts are the hosts besides the API server's own (host, or
	// host:port for one port only) the files of messages may be fetched
	// from; a file anywhere else is not fetched.
	MediaHosts []string
	// HTTPClient, when set, is used for API calls and the WebSocket
	// handshake (tests, proxies).
	HTTPClient *http.Client
	// Now is the clock for messages that carry no time [time.Now].
	Now func() time.Time
	// Qualify prefixes every channel id with its login's platform
	// ("qq:12345") even when the server offers one login; the runtime sets
	// it when several adapters run, so ids stay the same from the start.
	Qualify bool
}

func (c *Config) setDefaults() {
	if c.PingInterval <= 0 {
		c.PingInterval = 10 * time.Second
	}
	if c.PongTimeout <= 0 {
		c.PongTimeout = 2 * c.PingInterval
	}
	if c.HTTPTimeout <= 0 {
		c.HTTPTimeout = 15 * time.Second
	}
	if c.MinBackoff <= 0 {
		c.MinBackoff = time.Second
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = 60 * time.Second
	}
	if c.MaxBackoff < c.MinBackoff {
		c.MaxBackoff = c.MinBackoff
	}
	if c.SendAttempts <= 0 {
		c.SendAttempts = 3
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// DeriveAPIBaseURL turns an event stream URL into the API base URL:
// ws becomes http, wss https, and a trailing /events is dropped.
func DeriveAPIBaseURL(wsURL string) (string, error) {
	u, err := url.Parse(wsURL)
	if err != nil {
		return "", fmt.Errorf("parse websocket url: %w", err)
	}
	switch u.Scheme {
	case "ws":
		u.Scheme = "http"
	case "wss":
		u.Scheme = "https"
	case "http", "https":
	default:
		return "", fmt.Errorf("websocket url %q: scheme must be ws or wss", wsURL)
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/events")
	u.RawPath = ""
	u.RawQuery = ""
	return strings.TrimSuffix(u.String(), "/"), nil
}

// Login is one bot account the server offers.
type Login struct {
	// Platform is the chat platform (qq, telegram, discord, ...).
	Platform string `json:"platform"`
	// SelfID is the bot's user id on that platform.
	SelfID string `json:"self_id"`
	// Name is the bot's display name, when the server tells it.
	Name string `json:"name,omitempty"`
	// Status is the Satori login status (1 = online).
	Status int `json:"status,omitempty"`
}

type login = Login

// Logins returns the bot accounts the server offered in its last READY
// (and any seen on events since).
func (a *Adapter) Logins() []Login {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Login(nil), a.logins...)
}

// Adapter connects to one Satori server and joins every login it offers.
type Adapter struct {
	cfg     Config
	cursors adapters.Cursors
	log     *zap.Logger
	http    *http.Client
	key     string // cursor key

	readyOnce sync.Once
	ready     chan struct{}
	// link is up while the event stream is open.
	link adapters.Link

	mu     sync.Mutex
	logins []login
	// routes remembers which login a channel id (as the model sees it)
	// was seen on, so replies go out through the same bot.
	routes map[string]login
	// qualify is set when the server offers several logins: channel ids
	// are then platform:id.
	qualify bool
	// loginsDirty is set when logins changed since they were last stored.
	loginsDirty bool
	// seq is the last sequence number processed.
	seq    int64
	hasSeq bool
	// localSeq numbers the ids made for messages that came without one.
	localSeq int64
}

// New checks the configuration and returns an adapter; it does not
// connect (Run does).
func New(cfg Config, cursors adapters.Cursors, logger *zap.Logger) (*Adapter, error) {
	cfg.setDefaults()
	if logger == nil {
		logger = zap.NewNop()
	}
	u, err := url.Parse(cfg.WSURL)
	if err != nil || cfg.WSURL == "" {
		return nil, fmt.Errorf("satori: websocket url %q is not a url", cfg.WSURL)
	}
	if u.Scheme != "ws" && u.Scheme != "wss" && u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("satori: websocket url %q: scheme must be ws or wss", cfg.WSURL)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("satori: websocket url %q has no host", cfg.WSURL)
	}
	if cfg.APIBaseURL == "" {
		if cfg.APIBaseURL, err = DeriveAPIBaseURL(cfg.WSURL); err != nil {
			return nil, fmt.Errorf("satori: %w", err)
		}
	} else if a, err := url.Parse(cfg.APIBaseURL); err != nil || (a.Scheme != "http" && a.Scheme != "https") || a.Host == "" {
		return nil, fmt.Errorf("satori: api base url %q must be an http(s) url", cfg.APIBaseURL)
	}
	cfg.APIBaseURL = strings.TrimSuffix(cfg.APIBaseURL, "/")
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{}
	}
	return &Adapter{
		cfg:     cfg,
		cursors: cursors,
		log:     logger.Named("satori"),
		http:    client,
		key:     "satori:" + cfg.WSURL,
		ready:   make(chan struct{}),
		routes:  make(map[string]login),
	}, nil
}

// Name returns "satori".
func (a *Adapter) Name() string { return Name }

// Health returns nil while the event stream is open, otherwise why not.
func (a *Adapter) Health() error {
	if err := a.link.Err(); err != nil {
		return fmt.Errorf("satori: %w", err)
	}
	return nil
}

// Ready is closed once the adapter is connected and knows its logins.
func (a *Adapter) Ready() <-chan struct{} { return a.ready }

// Typing is a no-op: Satori has no typing indicator.
func (a *Adapter) Typing(ctx context.Context, channelID string) error { return nil }

// CursorKey is the key under which the last sequence number is stored.
func (a *Adapter) CursorKey() string { return a.key }

// setLogins records the logins of a READY signal.
func (a *Adapter) setLogins(ls []login) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.logins = ls
	a.qualify = a.cfg.Qualify || len(ls) > 1
	a.loginsDirty = true
}

// addLogin records a login seen on an event but not in READY.
func (a *Adapter) addLogin(l login) login {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, have := range a.logins {
		if have.Platform == l.Platform && have.SelfID == l.SelfID {
			return have
		}
	}
	a.logins = append(a.logins, l)
	a.loginsDirty = true
	return l
}

// loginsKey is the cursor under which the logins are stored.
func (a *Adapter) loginsKey() string { return a.key + ":logins" }

// saveLogins stores the logins when they changed, so that processes that
// do not hold the event stream (other replicas of the bot) can send
// through the HTTP API, which needs a login on every request.
func (a *Adapter) saveLogins(ctx context.Context) {
	a.mu.Lock()
	if !a.loginsDirty || a.cursors == nil {
		a.mu.Unlock()
		return
	}
	raw, err := json.Marshal(a.logins)
	a.loginsDirty = false
	a.mu.Unlock()
	if err == nil {
		err = a.cursors.SetCursor(ctx, a.loginsKey(), string(raw))
	}
	if err != nil {
		a.mu.Lock()
		a.loginsDirty = true
		a.mu.Unlock()
		if ctx.Err() == nil {
			a.log.Warn("store the logins for other replicas", zap.Error(err))
		}
	}
}

// loadLogins reads the logins another process stored, for sending
// without the event stream. It does nothing once this adapter is
// connected: its own READY is then the truth.
func (a *Adapter) loadLogins(ctx context.Context) error {
	select {
	case <-a.ready:
		return nil
	default:
	}
	if a.cursors == nil {
		return nil
	}
	raw, err := a.cursors.Cursor(ctx, a.loginsKey())
	if err != nil {
		return fmt.Errorf("load the stored logins: %w", err)
	}
	if raw == "" {
		return nil
	}
	var ls []login
	if err := json.Unmarshal([]byte(raw), &ls); err != nil {
		return fmt.Errorf("load the stored logins: %w", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	select {
	case <-a.ready: // connected meanwhile
		return nil
	default:
	}
	a.logins = ls
	a.qualify = a.cfg.Qualify || len(ls) > 1
	return nil
}

// channelID is the id the model sees for a Satori channel of a login.
func (a *Adapter) channelID(l login, native string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	id := native
	if a.qualify {
		id = l.Platform + ":" + native
	}
	a.routes[id] = l
	return id
}

// ErrNotReady is returned by Send before the first READY.
var ErrNotReady = errors.New("satori: not connected yet")

// ErrNoLogin is returned by Send when the server offers no logged-in bot.
var ErrNoLogin = errors.New("satori: the server has no logged-in bot to send with")

// route resolves a channel id the model used into a login and the
// Satori channel id.
func (a *Adapter) route(id string) (login, string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.logins) == 0 {
		select {
		case <-a.ready:
			return login{}, "", ErrNoLogin
		default:
			return login{}, "", ErrNotReady
		}
	}
	if !a.qualify {
		if l, ok := a.routes[id]; ok {
			return l, id, nil
		}
		return a.logins[0], id, nil
	}
	platform, native, ok := strings.Cut(id, ":")
	if !ok || native == "" {
		return login{}, "", fmt.Errorf("channel id %q: expected platform:channel (platforms: %s)", id, a.platformsLocked())
	}
	if l, ok := a.routes[id]; ok {
		return l, native, nil
	}
	for _, l := range a.logins {
		if l.Platform == platform {
			return l, native, nil
		}
	}
	return login{}, "", fmt.Errorf("channel id %q: no login on platform %q (platforms: %s)", id, platform, a.platformsLocked())
}

func (a *Adapter) platformsLocked() string {
	var ps []string
	for _, l := range a.logins {
		ps = append(ps, l.Platform)
	}
	return strings.Join(ps, ", ")
}
