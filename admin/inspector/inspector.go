// Package inspector serves the operator's window onto a running bot: the
// channels, each channel's timeline of messages and ticks, every tick's
// request, answer and action, and search. Pages are rendered on the server
// with html/template (every piece of chat text is escaped); a small script
// adds live updates to a timeline by polling. It reads the store only.
package inspector

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"sync"

	"go.uber.org/zap"

	"github.com/airi-go/airi/internal/tokens"
	"github.com/airi-go/airi/state"
)

//go:embed assets
var assets embed.FS

// Store is what the inspector reads.
type Store interface {
	Channels(ctx context.Context) ([]state.Channel, error)
	Channel(ctx context.Context, id string) (state.Channel, error)
	UnreadCounts(ctx context.Context) (map[string]int, error)
	ChannelActivity(ctx context.Context) ([]state.ChannelActivity, error)
	Timeline(ctx context.Context, q state.TimelineQuery) ([]state.TimelineItem, error)
	Ticks(ctx context.Context, f state.TickFilter) ([]state.Tick, error)
	TickNeighbours(ctx context.Context, channelID string, id int64) (prev, next int64, err error)
	ListReminders(ctx context.Context, f state.ReminderFilter) ([]state.Reminder, error)
	MediaImage(ctx context.Context, hash string) (state.Image, error)
	ReactionCounts(ctx context.Context, channelID string, messageIDs []string) ([]state.ReactionCount, error)
}

// Badge is one fact about a channel shown on the channels page beside its
// activity: paused, its attention mode, the budget it used.
type Badge struct {
	Label string
	Value string
	// Warn marks a badge that needs the operator's eye (a paused channel,
	// a spent budget).
	Warn bool
}

// Options configure an Inspector.
type Options struct {
	Store  Store
	Logger *zap.Logger
	// ChannelBadges, when set, returns what else is known of a channel
	// (paused, attention mode, budget use) for the channels page.
	ChannelBadges func(ctx context.Context, ch state.Channel) []Badge
	// Status, when set, fills the status strip of every page.
	Status func(ctx context.Context) Status
	// PageSize is the number of timeline items per page [50].
	PageSize int
	// LiveInterval is how often, in milliseconds, a live timeline asks
	// for new items [2000]; at least 1000.
	LiveInterval int
}

// Inspector serves the inspector's pages.
type Inspector struct {
	opts  Options
	log   *zap.Logger
	pages map[string]*template.Template

	tokOnce sync.Once
	tok     *tokens.Counter
}

// New returns an inspector reading opts.Store.
func New(opts Options) (*Inspector, error) {
	if opts.Store == nil {
		return nil, errors.New("inspector: no store")
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 50
	}
	opts.PageSize = min(opts.PageSize, state.MaxTimelineLimit)
	if opts.LiveInterval <= 0 {
		opts.LiveInterval = 2000
	}
	opts.LiveInterval = max(opts.LiveInterval, 1000)
	in := &Inspector{opts: opts, log: opts.Logger, pages: map[string]*template.Template{}}
	base, err := template.New("layout.html").Funcs(funcs()).ParseFS(assets, "assets/templates/layout.html", "assets/templates/items.html")
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"channels", "timeline", "search", "tick", "login", "live"} {
		t, err := template.Must(base.Clone()).ParseFS(assets, "assets/templates/"+name+".html")
		if err != nil {
			return nil, err
		}
		in.pages[name] = t
	}
	return in, nil
}

// tokens returns the token counter, made on first use: its vocabulary is
// large and most processes never open a tick page.
func (in *Inspector) tokens() *tokens.Counter {
	in.tokOnce.Do(func() { in.tok = tokens.New() })
	return in.tok
}

// Register adds the inspector's pages to mux, each wrapped by auth (the
// admin server's token check). The stylesheet and script are public: the
// login page needs them and they hold no data.
func (in *Inspector) Register(mux *http.ServeMux, auth func(http.Handler) http.Handler) {
	static, _ := fs.Sub(assets, "assets/static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", withHeaders(http.FileServerFS(static))))
	page := func(pattern string, h http.HandlerFunc) { mux.Handle(pattern, auth(withHeaders(h))) }
	page("GET /{$}", in.channels)
	page("GET /channels/{id...}", in.timeline)
	page("GET /live", in.live)
	page("GET /ticks", in.ticks)
	page("GET /ticks/{id}", in.tick)
	page("GET /search", in.search)
	mux.Handle("GET /media/{hash}", auth(withHeaders(http.HandlerFunc(in.image))))
}

// LoginPage renders the login form; failed says a token was refused.
func (in *Inspector) LoginPage(w http.ResponseWriter, r *http.Request, next string, failed bool) {
	w.Header().Set("Cache-Control", "no-store")
	if failed {
		w.WriteHeader(http.StatusUnauthorized)
	}
	in.render(w, r, "login", page{Title: "Sign in", Nav: "login", Body: struct {
		Next   string
		Failed bool
	}{next, failed}})
}

// withHeaders sets the headers every inspector response carries: pages
// run only their own script and style, are never framed, and chat text
// is never sniffed as something else.
func withHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}

// page is what the layout renders around a page's body.
type page struct {
	Title string
	// Nav is the section the page belongs to: channels, search.
	Nav string
	// Query and Outcome fill the search form in the header.
	Query, Outcome string
	Body           any
	// Status is the strip at the top; nil shows none (the sign-in form).
	Status *Status
}

// render executes a page into a buffer first, so a failing template gives
// a clean error instead of half a page.
func (in *Inspector) render(w http.ResponseWriter, r *http.Request, name string, p page) {
	if in.opts.Status != nil && p.Nav != "login" {
		st := in.opts.Status(r.Context())
		p.Status = &st
	}
	var buf bytes.Buffer
	if err := in.pages[name].ExecuteTemplate(&buf, "layout.html", p); err != nil {
		in.log.Error("render inspector page", zap.String("page", name), zap.String("path", r.URL.Path), zap.Error(err))
		http.Error(w, "render page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = buf.WriteTo(w)
}

// fail reports an error as a page; store errors are logged.
func (in *Inspector) fail(w http.ResponseWriter, r *http.Request, code int, msg string, err error) {
	if err != nil {
		in.log.Error("inspector", zap.String("path", r.URL.Path), zap.Error(err))
		msg += ": " + err.Error()
	}
	http.Error(w, msg, code)
}
