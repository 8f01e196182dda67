package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
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
	body, code, err := admin.Get(ctx, *addr, cfg.AdminToken, "/readyz", *timeout)
	if u := (*admin.UnreachableError)(nil); errors.As(err, &u) {
		u.Err = rootCause(u.Err)
	}
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
