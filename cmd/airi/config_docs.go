package main

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// cmdConfigDocs prints the configuration reference, generated from the
// settings table, as the markdown table the documentation holds.
func (a *app) cmdConfigDocs(_ context.Context, args []string) int {
	fs := a.flags("config docs")
	if code, ok := a.parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(a.stderr, "airi config docs: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	writeSettingsDocs(a.stdout)
	return exitOK
}

// writeSettingsDocs writes one row per setting: the variable, its default
// (a value in backticks, or words when it is unset by default) and what it
// means.
func writeSettingsDocs(w io.Writer) {
	fmt.Fprintln(w, "| variable | default | meaning |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, s := range settingsTable {
		def := s.unset
		if s.def != "" {
			def = "`" + s.def + "`"
		}
		doc := s.doc
		if s.channel {
			doc += "; also per channel under `channels:` in the file"
		}
		fmt.Fprintf(w, "| `%s` | %s | %s |\n", s.name, def, strings.ReplaceAll(doc, "|", `\|`))
	}
}
