package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// readyCheck is one check of /readyz.
type readyCheck struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
}

// readiness is the body of /readyz.
type readiness struct {
	Status string       `json:"status"` // "ok" or "failing"
	Checks []readyCheck `json:"checks"`
}

// healthChecker is an adapter that says whether it reaches its platform.
type healthChecker interface{ Health() error }

// writeChecker is a store that says whether its writes succeed (SQLite).
type writeChecker interface{ WriteErr() error }

// pinger is a store that answers a round trip (PostgreSQL).
type pinger interface {
	Ping(ctx context.Context) error
}

// checkErr turns an error into a check.
func checkErr(name string, err error, ok string) readyCheck {
	if err != nil {
		return readyCheck{Name: name, Detail: err.Error()}
	}
	return readyCheck{Name: name, OK: true, Detail: ok}
}

// storeCheck reports whether the store takes writes.
func storeCheck(ctx context.Context, st any) readyCheck {
	switch s := st.(type) {
	case writeChecker:
		return checkErr("store", s.WriteErr(), "writes succeed")
	case pinger:
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		return checkErr("store", s.Ping(pctx), "database answers")
	}
	return readyCheck{Name: "store", OK: true}
}

// readyz answers the readiness checks: 200 when all pass, 503 otherwise.
func (s *adminServer) readyz(w http.ResponseWriter, r *http.Request) {
	var checks []readyCheck
	if s.checks != nil {
		checks = s.checks(r.Context())
	}
	body := readiness{Status: "ok", Checks: checks}
	for _, c := range checks {
		if !c.OK {
			body.Status = "failing"
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if body.Status != "ok" {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(body)
}

func (a *app) cmdHealth(ctx context.Context, args []string) int {
	fs := a.flags("health")
	var cf commonFlags
	cf.register(fs)
	addr := fs.String("addr", "", "admin address of the bot (default AIRI_ADMIN_ADDR)")
	asJSON := fs.Bool("json", false, "print the bot's checks as JSON")
	timeout := fs.Duration("timeout", 5*time.Second, "how long to wait for the answer")
	if code, ok := a.parseFlags(fs, args); !ok {
		return code
	}
	cfg, err := loadConfig(cf.configFile, a.getenv)
	if err != nil {
		fmt.Fprintf(a.stderr, "airi health: invalid configuration:\n%v\n", err)
		return exitUsage
	}
	if *addr == "" {
		*addr = cfg.AdminAddr
	}
	body, code, err := adminGet(ctx, *addr, cfg.AdminToken, "/readyz", *timeout)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi health:", err)
		return exitFailure
	}
	var rd readiness
	if err := json.Unmarshal(body, &rd); err != nil {
		fmt.Fprintf(a.stderr, "airi health: %s answered %d with no readiness report: %v\n", *addr, code, err)
		return exitFailure
	}
	if *asJSON {
		_, _ = a.stdout.Write(body)
	} else {
		for _, c := range rd.Checks {
			mark := "ok  "
			if !c.OK {
				mark = "FAIL"
			}
			fmt.Fprintf(a.stdout, "%s %-10s %s\n", mark, c.Name, c.Detail)
		}
	}
	if code != http.StatusOK {
		return exitFailure
	}
	return exitOK
}

// adminGet asks the admin server of a running bot.
func adminGet(ctx context.Context, addr, token, path string, timeout time.Duration) ([]byte, int, error) {
	return adminCall(ctx, http.MethodGet, addr, token, path, nil, timeout)
}

// adminCall sends one request to the admin server of a running bot and
// returns the body and status.
func adminCall(ctx context.Context, method, addr, token, path string, body io.Reader, timeout time.Duration) ([]byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	host := addr
	if strings.HasPrefix(host, "0.0.0.0:") || strings.HasPrefix(host, "[::]:") || strings.HasPrefix(host, ":") {
		// A server listening everywhere is reached on loopback.
		host = "127.0.0.1:" + host[strings.LastIndex(host, ":")+1:]
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+host+path, body)
	if err != nil {
		return nil, 0, fmt.Errorf("admin server %s: %w", addr, err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("no bot answers at AIRI_ADMIN_ADDR=%s: %w", addr, rootCause(err))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, resp.StatusCode, fmt.Errorf("admin server %s: %w", addr, err)
	}
	return b, resp.StatusCode, nil
}

// adapterCheck reports whether an adapter reaches its platform.
func adapterCheck(ad adapter) readyCheck {
	if h, ok := ad.sender.(healthChecker); ok {
		return checkErr(ad.Name(), h.Health(), "connected")
	}
	select {
	case <-ad.ready:
		return readyCheck{Name: ad.Name(), OK: true, Detail: "connected"}
	default:
		return readyCheck{Name: ad.Name(), Detail: "not connected yet"}
	}
}
