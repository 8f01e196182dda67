package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestHelpOfEveryCommand asks every command and subcommand that "airi
// help" lists for its help, in each of the ways a user may: "airi help X",
// "airi X --help" and "airi X -h", with no setting in the environment.
// Each prints its usage on stdout and exits 0 without running: no database
// is opened (DB_PATH is unset) and nothing panics.
func TestHelpOfEveryCommand(t *testing.T) {
	var names []string
	groups := map[string]bool{}
	for _, c := range commands {
		names = append(names, c.name)
		if g, _, ok := strings.Cut(c.name, " "); ok && !groups[g] {
			groups[g] = true
			names = append(names, g)
		}
	}
	for _, name := range names {
		words := strings.Fields(name)
		for _, form := range [][]string{
			append([]string{"help"}, words...),
			append(append([]string(nil), words...), "--help"),
			append(append([]string(nil), words...), "-h"),
		} {
			t.Run(strings.Join(form, " "), func(t *testing.T) {
				t.Chdir(t.TempDir())
				code, stdout, stderr := runHelp(t, form)
				if code != exitOK {
					t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr)
				}
				if !strings.Contains(stdout, "Usage") && !strings.Contains(stdout, "usage") {
					t.Errorf("stdout has no usage:\n%s", stdout)
				}
				if !strings.Contains(stdout, "airi "+name) {
					t.Errorf("stdout does not name airi %s:\n%s", name, stdout)
				}
				if strings.Contains(stderr, "database") || strings.Contains(stderr, "DB_PATH") {
					t.Errorf("help went on to the database:\n%s", stderr)
				}
			})
		}
	}
}

// runHelp runs args with an empty environment and turns a panic into a
// test failure that names the command.
func runHelp(t *testing.T, args []string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("airi %s panicked: %v\nstderr:\n%s", strings.Join(args, " "), r, errOut.String())
			}
		}()
		code = a.run(context.Background(), args)
	}()
	return code, out.String(), errOut.String()
}
