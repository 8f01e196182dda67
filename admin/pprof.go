package admin

import (
	"net/http"
	"net/http/pprof"
)

// registerProfiles serves Go's profiles (CPU, heap, goroutines, blocking,
// locks, traces) under /debug/pprof/ on the admin server, behind its
// token: they show message text in memory and cost CPU while they run.
func registerProfiles(mux *http.ServeMux, auth func(http.Handler) http.Handler) {
	mux.Handle("GET /debug/pprof/", auth(http.HandlerFunc(pprof.Index)))
	mux.Handle("GET /debug/pprof/cmdline", auth(http.HandlerFunc(pprof.Cmdline)))
	mux.Handle("GET /debug/pprof/profile", auth(http.HandlerFunc(pprof.Profile)))
	mux.Handle("GET /debug/pprof/symbol", auth(http.HandlerFunc(pprof.Symbol)))
	mux.Handle("POST /debug/pprof/symbol", auth(http.HandlerFunc(pprof.Symbol)))
	mux.Handle("GET /debug/pprof/trace", auth(http.HandlerFunc(pprof.Trace)))
}
