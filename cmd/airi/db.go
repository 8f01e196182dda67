package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/airi-go/airi/state/sqlite"
)

// backuper is a store that writes a consistent copy of itself (SQLite).
type backuper interface {
	Backup(ctx context.Context, path string) error
}

func (a *app) cmdDBBackup(ctx context.Context, args []string) int {
	_, cfg, log, rest, code, ok := a.opsSetup("db backup", args, false, nil)
	if !ok {
		return code
	}
	defer func() { _ = log.Sync() }()
	if len(rest) != 1 {
		fmt.Fprintln(a.stderr, "airi db backup: name the file to write")
		return exitUsage
	}
	if cfg.DatabaseURL != "" {
		fmt.Fprintln(a.stderr, "airi db backup: on PostgreSQL use pg_dump (for example pg_dump --format=custom \"$DATABASE_URL\" > airi.dump)")
		return exitUsage
	}
	target := rest[0]
	if _, err := os.Stat(target); err == nil {
		fmt.Fprintf(a.stderr, "airi db backup: %s exists; name a new file\n", target)
		return exitUsage
	}
	st, err := openOps(ctx, cfg, log, false)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi db backup:", err)
		return exitFailure
	}
	defer st.Close()
	b, ok := st.(backuper)
	if !ok {
		fmt.Fprintln(a.stderr, "airi db backup: this database cannot be backed up by airi")
		return exitFailure
	}
	start := time.Now()
	if err := b.Backup(ctx, target); err != nil {
		fmt.Fprintln(a.stderr, "airi db backup:", err)
		return exitFailure
	}
	info, err := os.Stat(target)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi db backup:", err)
		return exitFailure
	}
	fmt.Fprintf(a.stdout, "wrote %s (%d bytes) in %s\n", target, info.Size(), time.Since(start).Round(time.Millisecond))
	return exitOK
}

func (a *app) cmdDBStats(ctx context.Context, args []string) int {
	of, cfg, log, rest, code, ok := a.opsSetup("db stats", args, true, nil)
	if !ok {
		return code
	}
	defer func() { _ = log.Sync() }()
	if len(rest) > 0 {
		fmt.Fprintln(a.stderr, "airi db stats: takes no arguments")
		return exitUsage
	}
	st, err := openOps(ctx, cfg, log, false)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi db stats:", err)
		return exitFailure
	}
	defer st.Close()
	stats, err := st.Stats(ctx)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi db stats:", err)
		return exitFailure
	}
	var perTick int64
	for _, t := range stats.Tables {
		if t.Name == "ticks" && t.Rows > 0 {
			perTick = t.Bytes / t.Rows
		}
	}
	if of.json {
		_ = json.NewEncoder(a.stdout).Encode(struct {
			Engine       string `json:"engine"`
			FileBytes    int64  `json:"fileBytes"`
			FreeBytes    int64  `json:"freeBytes"`
			BytesPerTick int64  `json:"bytesPerTick"`
			Tables       any    `json:"tables"`
			Pruned       any    `json:"pruned"`
			LastPrune    any    `json:"lastPrune,omitempty"`
		}{stats.Engine, stats.FileBytes, stats.FreeBytes, perTick, stats.Tables, stats.Pruned, nonZeroTime(stats.LastPrune)})
		return exitOK
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "TABLE\tROWS\tBYTES\tPRUNED\t")
	for _, t := range stats.Tables {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", t.Name, t.Rows, t.Bytes, stats.Pruned[t.Name])
	}
	_ = tw.Flush()
	fmt.Fprintf(a.stdout, "\n%s: %d bytes (%d free), %d bytes per tick", stats.Engine, stats.FileBytes, stats.FreeBytes, perTick)
	if !stats.LastPrune.IsZero() {
		fmt.Fprintf(a.stdout, ", retention last ran %s", stats.LastPrune.Local().Format(time.RFC3339))
	}
	fmt.Fprintln(a.stdout)
	return exitOK
}

func nonZeroTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

var _ backuper = (*sqlite.Store)(nil)
