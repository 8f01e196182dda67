package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/airi-go/airi/internal/notefile"
	"github.com/airi-go/airi/internal/term"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/state"
)

const memoryUsage = `airi memory: usage:
  airi memory list [--channel ID] [--user ID] [--json]   list notes (of a channel, about a person)
  airi memory show ID [--json]                           print one note
  airi memory delete ID                                  delete one note
  airi memory export                                     write every note as markdown
  airi memory import FILE                                add the notes of an export ("-" reads stdin)`

// cmdMemory runs the operator's memory commands.
func (a *app) cmdMemory(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(a.stderr, memoryUsage)
		return exitUsage
	}
	for _, arg := range args {
		switch arg {
		case "-h", "-help", "--help":
			// Help asked for is output, not a usage error.
			fmt.Fprintln(a.stdout, memoryUsage)
			fmt.Fprintln(a.stdout, "Every memory command also takes --config FILE.")
			return exitOK
		}
	}
	switch args[0] {
	case "list":
		return a.cmdMemoryList(ctx, args[1:])
	case "show":
		return a.cmdMemoryShow(ctx, args[1:])
	case "delete":
		return a.cmdMemoryDelete(ctx, args[1:])
	case "export":
		return a.cmdMemoryExport(ctx, args[1:])
	case "import":
		return a.cmdMemoryImport(ctx, args[1:])
	}
	fmt.Fprintf(a.stderr, "airi memory: unknown command %q\n%s\n", args[0], memoryUsage)
	return exitUsage
}

// memoryCmd is the shared start of the memory commands: flags parsed,
// configuration loaded, the store opened (read only unless write).
type memoryCmd struct {
	name  string
	fs    *flag.FlagSet
	cf    commonFlags
	json  *bool
	store state.Store
	close func()
}

func (a *app) newMemoryCmd(name string, withJSON bool) *memoryCmd {
	c := &memoryCmd{name: "memory " + name, fs: flag.NewFlagSet("memory "+name, flag.ContinueOnError)}
	c.fs.SetOutput(a.stderr)
	c.cf.register(c.fs)
	if withJSON {
		c.json = c.fs.Bool("json", false, "print JSON")
	}
	return c
}

// parse parses args (flags may follow the positional arguments) and
// checks that there are nargs positional arguments.
func (c *memoryCmd) parse(a *app, args []string, nargs int, what string) ([]string, int) {
	var pos []string
	for {
		if err := c.fs.Parse(args); err != nil {
			if hint := flagSuggestion(c.fs, err); hint != "" {
				fmt.Fprintf(a.stderr, "airi %s: %v%s\n", c.name, err, hint)
			}
			return nil, exitUsage
		}
		args = c.fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if len(pos) != nargs {
		fmt.Fprintf(a.stderr, "airi %s: want %s\n", c.name, what)
		return nil, exitUsage
	}
	return pos, exitOK
}

// open loads the configuration and opens the store.
func (c *memoryCmd) open(ctx context.Context, a *app, write bool) int {
	cfg, log, code := a.setup(c.name, c.cf)
	if code != exitOK {
		return code
	}
	if !write {
		if err := storeExists(cfg); err != nil {
			fmt.Fprintf(a.stderr, "airi %s: %v\n", c.name, err)
			return exitFailure
		}
		s, err := openStoreReadOnly(ctx, cfg, log)
		if err != nil {
			fmt.Fprintf(a.stderr, "airi %s: %v\n", c.name, err)
			return exitFailure
		}
		c.store, c.close = s, func() { _ = s.Close(); _ = log.Sync() }
		return exitOK
	}
	s, err := openStore(ctx, cfg, log, true)
	if err != nil {
		fmt.Fprintf(a.stderr, "airi %s: %v\n", c.name, err)
		return exitFailure
	}
	c.store, c.close = s, func() { _ = s.Close(); _ = log.Sync() }
	return exitOK
}

func (c *memoryCmd) fail(a *app, err error) int {
	fmt.Fprintf(a.stderr, "airi %s: %v\n", c.name, err)
	return exitFailure
}

func (a *app) cmdMemoryList(ctx context.Context, args []string) int {
	c := a.newMemoryCmd("list", true)
	channel := c.fs.String("channel", "", "only the notes about this channel (the id the model sees)")
	user := c.fs.String("user", "", "only the notes about this person (their user id)")
	if _, code := c.parse(a, args, 0, "no arguments besides --channel, --user and --json"); code != exitOK {
		return code
	}
	if code := c.open(ctx, a, false); code != exitOK {
		return code
	}
	defer c.close()
	var notes []state.Note
	filters := []state.NoteFilter{{}}
	if *channel != "" || *user != "" {
		filters = nil
		if *channel != "" {
			filters = append(filters, state.NoteFilter{Scope: state.ScopeChannel, Subject: *channel})
		}
		if *user != "" {
			filters = append(filters, state.NoteFilter{Scope: state.ScopeUser, Subject: *user})
		}
	}
	for _, f := range filters {
		ns, err := c.store.Notes(ctx, f)
		if err != nil {
			return c.fail(a, err)
		}
		notes = append(notes, ns...)
	}
	if *c.json {
		return a.printJSON(c, orEmpty(notes))
	}
	if len(notes) == 0 {
		fmt.Fprintln(a.stderr, "airi memory list: no notes")
		return exitOK
	}
	w := bufio.NewWriter(a.stdout)
	for _, n := range notes {
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", n.ID, noteWho(n), n.Updated.Format(time.DateTime), prompts.Quote(n.Text))
	}
	if err := w.Flush(); err != nil {
		return c.fail(a, err)
	}
	return exitOK
}

func orEmpty(ns []state.Note) []state.Note {
	if ns == nil {
		return []state.Note{}
	}
	return ns
}

func (a *app) printJSON(c *memoryCmd, v any) int {
	enc := json.NewEncoder(a.stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return c.fail(a, err)
	}
	return exitOK
}

// noteWho says whom a note is about, for people.
func noteWho(n state.Note) string {
	switch n.Scope {
	case state.ScopeUser:
		s := "user " + cell(n.Subject)
		if n.Name != "" {
			s += " (" + cell(n.Name) + ")"
		}
		if n.Shareable {
			s += " shareable"
		}
		return s
	case state.ScopeChannel:
		return "channel " + cell(n.Subject)
	}
	return "global"
}

// noteID parses a note id given on the command line.
func noteID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("%q is not a note id (a positive number, as airi memory list shows)", s)
	}
	return id, nil
}

func (a *app) cmdMemoryShow(ctx context.Context, args []string) int {
	c := a.newMemoryCmd("show", true)
	pos, code := c.parse(a, args, 1, "one note id")
	if code != exitOK {
		return code
	}
	id, err := noteID(pos[0])
	if err != nil {
		fmt.Fprintf(a.stderr, "airi %s: %v\n", c.name, err)
		return exitUsage
	}
	if code := c.open(ctx, a, false); code != exitOK {
		return code
	}
	defer c.close()
	n, err := c.store.Note(ctx, id)
	if err != nil {
		return c.fail(a, err)
	}
	if *c.json {
		return a.printJSON(c, n)
	}
	fmt.Fprintf(a.stdout, "note %d\nabout: %s\ncreated: %s\nupdated: %s\n", n.ID, noteWho(n),
		n.Created.Format(time.RFC3339), n.Updated.Format(time.RFC3339))
	if !n.Used.IsZero() {
		fmt.Fprintf(a.stdout, "last shown: %s\n", n.Used.Format(time.RFC3339))
	}
	if n.Tick != 0 {
		fmt.Fprintf(a.stdout, "written by tick: %d\n", n.Tick)
	}
	fmt.Fprintf(a.stdout, "text: %s\n", term.Printable(n.Text))
	return exitOK
}

func (a *app) cmdMemoryDelete(ctx context.Context, args []string) int {
	c := a.newMemoryCmd("delete", false)
	pos, code := c.parse(a, args, 1, "one note id")
	if code != exitOK {
		return code
	}
	id, err := noteID(pos[0])
	if err != nil {
		fmt.Fprintf(a.stderr, "airi %s: %v\n", c.name, err)
		return exitUsage
	}
	if code := c.open(ctx, a, true); code != exitOK {
		return code
	}
	defer c.close()
	if err := c.store.DeleteNote(ctx, id); err != nil {
		return c.fail(a, err)
	}
	fmt.Fprintf(a.stdout, "deleted note %d\n", id)
	return exitOK
}

func (a *app) cmdMemoryExport(ctx context.Context, args []string) int {
	c := a.newMemoryCmd("export", false)
	if _, code := c.parse(a, args, 0, "no arguments"); code != exitOK {
		return code
	}
	if code := c.open(ctx, a, false); code != exitOK {
		return code
	}
	defer c.close()
	notes, err := c.store.Notes(ctx, state.NoteFilter{})
	if err != nil {
		return c.fail(a, err)
	}
	if err := notefile.Write(a.stdout, notes); err != nil {
		return c.fail(a, err)
	}
	return exitOK
}

func (a *app) cmdMemoryImport(ctx context.Context, args []string) int {
	c := a.newMemoryCmd("import", false)
	pos, code := c.parse(a, args, 1, "one file (as airi memory export writes it; - for stdin)")
	if code != exitOK {
		return code
	}
	var r io.Reader = a.stdin
	if pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			return c.fail(a, err)
		}
		defer f.Close()
		r = f
	}
	// Read and check the whole file before anything is stored.
	notes, err := notefile.Read(r)
	if err != nil {
		return c.fail(a, fmt.Errorf("%s: %w", pos[0], err))
	}
	if code := c.open(ctx, a, true); code != exitOK {
		return code
	}
	defer c.close()
	have, err := c.store.Notes(ctx, state.NoteFilter{})
	if err != nil {
		return c.fail(a, err)
	}
	known := map[string]bool{}
	key := func(n state.Note) string { return string(n.Scope) + "\x00" + n.Subject + "\x00" + n.Text }
	for _, n := range have {
		known[key(n)] = true
	}
	added, skipped, evicted := 0, 0, 0
	for _, n := range notes {
		if known[key(n)] {
			skipped++
			continue
		}
		_, ev, err := c.store.SaveNote(ctx, n, state.DefaultNoteLimits(n.Scope))
		if err != nil {
			return c.fail(a, fmt.Errorf("after %d notes: %w", added, err))
		}
		known[key(n)] = true
		added++
		evicted += len(ev)
	}
	fmt.Fprintf(a.stdout, "imported %d note(s), %d already there", added, skipped)
	if evicted > 0 {
		fmt.Fprintf(a.stdout, ", %d evicted by the caps", evicted)
	}
	fmt.Fprintln(a.stdout)
	return exitOK
}
