package admin

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	"go.uber.org/zap"

	"github.com/airi-go/airi/admin/inspector"
	"github.com/airi-go/airi/scheduler/attention"
	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state"
)

// mountInspector adds the inspector's pages and the sign-in form. The
// pages are embedded in the binary, so they fail to load only in a broken
// build; the health and metrics endpoints keep working then.
func (s *Server) mountInspector(mux *http.ServeMux) {
	in, err := inspector.New(inspector.Options{Store: s.store, Logger: s.log.Named("inspector"), ChannelBadges: s.badges, Status: s.status})
	if err != nil {
		s.log.Error("the inspector's pages do not load", zap.Error(err))
		mux.Handle("GET /", s.auth(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "inspector: "+err.Error(), http.StatusInternalServerError)
		})))
		return
	}
	in.Register(mux, s.auth)
	s.registerLogin(mux, in)
}

// ChannelBadges reports a group's attention mode and a channel's token
// budget use today (a warning from 80%, where groups fall back to
// addressed). tracker is nil when no budget is set.
func ChannelBadges(policy attention.Policy, tracker *budget.Tracker, now func() time.Time) func(context.Context, state.Channel) []inspector.Badge {
	return func(ctx context.Context, ch state.Channel) []inspector.Badge {
		var out []inspector.Badge
		if ch.Group {
			out = append(out, inspector.Badge{Label: "mode", Value: string(policy.For(ch.ID).Mode)})
		}
		if tracker != nil {
			if use, ok := tracker.Use(ctx, now(), []string{ch.ID})[ch.ID]; ok {
				out = append(out, inspector.Badge{Label: "budget",
					Value: fmt.Sprintf("%d%% of %d today", use[0]*100/max(use[1], 1), use[1]), Warn: use[0]*5 >= use[1]*4})
			}
		}
		return out
	}
}

// adminCookie holds a browser's admin session: a digest of the token, so
// that the cookie does not carry the token itself.
const adminCookie = "airi_admin"

// adminCookieAge is how long a sign-in lasts, in seconds.
const adminCookieAge = 7 * 24 * 3600

func (s *Server) sessionValue() string {
	sum := sha256.Sum256([]byte("airi admin session\x00" + s.token))
	return hex.EncodeToString(sum[:])
}

func sameSecret(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// authorized reports whether r carries the admin token, as a bearer token
// or as the session cookie. Without a configured token (loopback only)
// everyone is.
func (s *Server) authorized(r *http.Request) bool {
	if s.token == "" {
		return true
	}
	if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
		return sameSecret(strings.TrimPrefix(h, "Bearer "), s.token)
	}
	if c, err := r.Cookie(adminCookie); err == nil {
		return sameSecret(c.Value, s.sessionValue())
	}
	return false
}

func (s *Server) setSession(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: adminCookie, Value: s.sessionValue(), Path: "/", MaxAge: adminCookieAge,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
}

// auth lets through requests that carry the admin token. A token in the
// address (?token=, for links from scripts) is accepted once: it is
// turned into the session cookie and the browser is sent to the same
// address without it, so it stays out of history and logs. A browser
// without the token is sent to the sign-in form; anything else gets 401.
func (s *Server) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tok := r.URL.Query().Get("token"); tok != "" && s.token != "" && sameSecret(tok, s.token) {
			s.setSession(w, r)
			q := r.URL.Query()
			q.Del("token")
			to := r.URL.Path
			if len(q) > 0 {
				to += "?" + q.Encode()
			}
			http.Redirect(w, r, to, http.StatusSeeOther)
			return
		}
		if s.authorized(r) {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "text/html") {
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="airi admin"`)
		http.Error(w, "admin token required", http.StatusUnauthorized)
	})
}

// localNext returns next when it is a path on this server, else "/": the
// sign-in form never sends a browser elsewhere. Browsers drop tabs and
// line breaks from a Location and read a backslash as a slash, so
// "/<tab>/host" would become "//host"; next is checked as given and
// after percent-decoding.
func localNext(next string) string {
	decoded, err := url.PathUnescape(next)
	if err != nil {
		return "/"
	}
	for _, p := range []string{next, decoded} {
		if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") ||
			strings.ContainsRune(p, '\\') || strings.ContainsFunc(p, unicode.IsControl) {
			return "/"
		}
	}
	if u, err := url.Parse(next); err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return "/"
	}
	return next
}

// registerLogin adds the sign-in form, which turns the token into the
// session cookie.
func (s *Server) registerLogin(mux *http.ServeMux, in *inspector.Inspector) {
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		next := localNext(r.URL.Query().Get("next"))
		if s.authorized(r) {
			http.Redirect(w, r, next, http.StatusSeeOther)
			return
		}
		in.LoginPage(w, r, next, false)
	})
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 4096)
		if err := r.ParseForm(); err != nil {
			http.Error(w, "sign in: "+err.Error(), http.StatusBadRequest)
			return
		}
		next := localNext(r.PostForm.Get("next"))
		if s.token != "" && !sameSecret(r.PostForm.Get("token"), s.token) {
			in.LoginPage(w, r, next, true)
			return
		}
		s.setSession(w, r)
		http.Redirect(w, r, next, http.StatusSeeOther)
	})
}
