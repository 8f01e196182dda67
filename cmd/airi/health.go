package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/airi-go/airi/admin"
)

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
	var rd admin.Readiness
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
