package main

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
)

// buildInfo is what `airi version` prints.
type buildInfo struct {
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go,omitempty"`
}

// readBuildInfo combines the version set at link time with what the Go
// toolchain recorded: the module version (set by `go install
// module@version`), the VCS revision and commit time (set by builds in a
// git checkout).
func readBuildInfo(linked string, read func() (*debug.BuildInfo, bool)) buildInfo {
	bi := buildInfo{Version: linked}
	info, ok := read()
	if !ok {
		return bi
	}
	bi.Go = info.GoVersion
	if (bi.Version == "" || bi.Version == "dev") && info.Main.Version != "" && info.Main.Version != "(devel)" {
		bi.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			bi.Revision = s.Value
		case "vcs.time":
			bi.Time = s.Value
		case "vcs.modified":
			bi.Modified = s.Value == "true"
		}
	}
	return bi
}

// String is the one-line form: "airi v1.2.0 (abc1234, 2025-01-02T03:04:05Z)".
func (b buildInfo) String() string {
	s := "airi " + b.Version
	var extra []string
	if b.Revision != "" {
		rev := b.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if b.Modified {
			rev += "+modified"
		}
		extra = append(extra, rev)
	}
	if b.Time != "" {
		extra = append(extra, "built from a commit of "+b.Time)
	}
	if b.Go != "" {
		extra = append(extra, b.Go)
	}
	for i, e := range extra {
		if i == 0 {
			s += " ("
		} else {
			s += ", "
		}
		s += e
	}
	if len(extra) > 0 {
		s += ")"
	}
	return s
}

func (a *app) cmdVersion(_ context.Context, args []string) int {
	fs := a.flags("version")
	asJSON := fs.Bool("json", false, "print a JSON object")
	if code, ok := a.parseFlags(fs, args); !ok {
		return code
	}
	bi := readBuildInfo(version, debug.ReadBuildInfo)
	if *asJSON {
		_ = json.NewEncoder(a.stdout).Encode(bi)
		return exitOK
	}
	fmt.Fprintln(a.stdout, bi)
	return exitOK
}
