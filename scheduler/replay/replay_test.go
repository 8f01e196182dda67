package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/scheduler/replay"
	"github.com/airi-go/airi/state"
)

// sessions is where the shipped sessions live, relative to this package.
const sessions = "../../testdata/sessions"

// opener opens, for each session, the bot as airi replay does
// (runtime.ReplayOpener): the default settings under the session's
// header, on a fresh SQLite store, with the templates of promptsDir
// (empty: the embedded ones).
func opener(t testing.TB, promptsDir string) replay.Opener {
	t.Helper()
	cfg := runtime.Defaults()
	cfg.PromptsDir = promptsDir
	return runtime.ReplayOpener(cfg, zap.NewNop())
}

func readSession(t *testing.T, name string) *replay.Session {
	t.Helper()
	ss, err := replay.ReadFile(filepath.Join(sessions, name))
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 1 {
		t.Fatalf("%s holds %d sessions, want 1", name, len(ss))
	}
	return ss[0]
}

func TestShippedSessionsReplay(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(sessions, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("found %d shipped sessions, want at least 5", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			ss, err := replay.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range ss {
				rep, err := replay.Play(context.Background(), s, opener(t, ""), replay.Options{Prompts: true})
				if err != nil {
					t.Fatal(err)
				}
				if rep.Divergence != nil {
					t.Errorf("diverged: %s", rep.Divergence)
				}
				if rep.Replayed != rep.Recorded || rep.Recorded == 0 {
					t.Errorf("replayed %d ticks of %d", rep.Replayed, rep.Recorded)
				}
				// Prompts may have been tuned since the recording: that is
				// reported, not a failure.
				for _, c := range rep.Prompts {
					t.Logf("tick %d renders differently now:\n%s", c.Tick, c.Diff)
				}
			}
		})
	}
}

// answer replaces the recorded answer of tick n (from 1).
func answer(t *testing.T, s *replay.Session, n int, raw string) {
	t.Helper()
	ticks := s.Ticks()
	if n > len(ticks) {
		t.Fatalf("session has %d ticks", len(ticks))
	}
	ticks[n-1].Raw = raw
}

func TestDivergence(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		edit     func(t *testing.T, s *replay.Session)
		tick     int
		what     string
		expected string
		got      string
	}{
		{
			name: "send turned into continue", file: "aborted-send.jsonl", tick: 3, what: "action",
			edit:     func(t *testing.T, s *replay.Session) { answer(t, s, 3, `{"action":"continue"}`) },
			expected: `{"action":"send_message","channelId":"412345678","content":"first boat out is 06:10, then every 40 minutes till noon."}`,
			got:      `{"action":"continue"}`,
		},
		{
			name: "send with other words", file: "direct-chat.jsonl", tick: 5, what: "action",
			edit: func(t *testing.T, s *replay.Session) {
				answer(t, s, 5, `{"action":"send_message","channelId":"console","content":"earl grey."}`)
			},
			got: `"content":"earl grey."`,
		},
		{
			name: "answer no longer parses", file: "group-burst.jsonl", tick: 1, what: "action",
			edit: func(t *testing.T, s *replay.Session) { answer(t, s, 1, "I would rather not.") },
			got:  "no action, parse error",
		},
		{
			name: "wake asks for a tick the recording lacks", file: "direct-chat.jsonl", tick: 2, what: "extra tick",
			edit: func(t *testing.T, s *replay.Session) {
				// Drop tick 3 (the continue after the send that asked for more).
				for i, it := range s.Items {
					if it.Tick != nil && it.Tick.Raw == `{"action":"continue"}` {
						s.Items = append(s.Items[:i], s.Items[i+1:]...)
						return
					}
				}
				t.Fatal("no continue tick")
			},
			got: "recording has no answer",
		},
		{
			name: "wake ends early", file: "direct-chat.jsonl", tick: 3, what: "missing tick",
			edit: func(t *testing.T, s *replay.Session) { s.Header.Settings.MaxIterations = 1 },
		},
		{
			name: "interrupting message missing", file: "aborted-send.jsonl", tick: 1, what: "model error",
			edit: func(t *testing.T, s *replay.Session) {
				for i, it := range s.Items {
					if it.Event != nil && it.Event.Content == "are you there" {
						s.Items = append(s.Items[:i], s.Items[i+1:]...)
						return
					}
				}
				t.Fatal("no such event")
			},
			got: "holds none after it",
		},
		{
			name: "reminder sent with other words", file: "reminder.jsonl", tick: 2, what: "reminder",
			edit:     func(t *testing.T, s *replay.Session) { reminderLine(t, s).Content = "call the dentist" },
			expected: `reminder sent: "call the dentist"`,
			got:      `reminder sent: "call the vet about Biscuit's jab`,
		},
		{
			name: "reminder recorded before it falls due", file: "reminder.jsonl", tick: 2, what: "reminder",
			edit: func(t *testing.T, s *replay.Session) {
				reminderLine(t, s).Time = time.Date(2026, 3, 15, 8, 0, 0, 0, time.UTC)
			},
			got: "no reminder due then",
		},
		{
			name: "reminder the recording lacks", file: "reminder.jsonl", tick: 3, what: "reminder",
			edit: func(t *testing.T, s *replay.Session) {
				for i, it := range s.Items {
					if it.Reminder != nil {
						s.Items = append(s.Items[:i], s.Items[i+1:]...)
					}
				}
			},
			expected: "no reminder due by 2026-03-15T09:12:01Z",
			got:      "a reminder sent",
		},
		{
			name: "interrupts turned off", file: "aborted-send.jsonl", tick: 1, what: "model error",
			edit: func(t *testing.T, s *replay.Session) { s.Header.Settings.Interrupt = false },
			got:  "does not cancel the call",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := readSession(t, tc.file)
			tc.edit(t, s)
			rep, err := replay.Play(context.Background(), s, opener(t, ""), replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			d := rep.Divergence
			if d == nil {
				t.Fatal("no divergence reported")
			}
			if d.Tick != tc.tick || d.What != tc.what {
				t.Fatalf("divergence at tick %d in %s, want tick %d in %s:\n%s", d.Tick, d.What, tc.tick, tc.what, d)
			}
			if tc.expected != "" && d.Expected != tc.expected {
				t.Errorf("expected = %s\nwant %s", d.Expected, tc.expected)
			}
			if !strings.Contains(d.Got, tc.got) {
				t.Errorf("got = %s\nwant it to contain %s", d.Got, tc.got)
			}
		})
	}
}

// reminderLine returns the session's only reminder line.
func reminderLine(t *testing.T, s *replay.Session) *replay.Reminder {
	t.Helper()
	for _, it := range s.Items {
		if it.Reminder != nil {
			return it.Reminder
		}
	}
	t.Fatal("no reminder line")
	return nil
}

func TestPromptChange(t *testing.T) {
	dir := t.TempDir()
	persona, err := fsRead(prompts.Embedded(), "persona.md")
	if err != nil {
		t.Fatal(err)
	}
	const from, to = "warm, dry, a little teasing.", "warm, dry, a little grumpy."
	if !strings.Contains(persona, from) {
		t.Fatalf("the embedded persona no longer says %q: pick another phrase of it for this test", from)
	}
	writeFile(t, filepath.Join(dir, "persona.md"), strings.Replace(persona, from, to, 1))
	s := fresh(t, readSession(t, "group-burst.jsonl"))
	rep, err := replay.Play(context.Background(), s, opener(t, dir), replay.Options{Prompts: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Divergence != nil {
		t.Fatalf("a persona edit changed what the bot did: %s", rep.Divergence)
	}
	if len(rep.Prompts) != len(s.Ticks()) {
		t.Fatalf("%d ticks with prompt changes, want every one of %d", len(rep.Prompts), len(s.Ticks()))
	}
	d := rep.Prompts[0].Diff
	for _, want := range []string{"--- recorded tick 1\n+++ replayed tick 1\n", "\n-Voice: " + from, "\n+Voice: " + to, " === message 1 (system)\n"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	minus, plus := 0, 0
	for _, l := range strings.Split(d, "\n")[2:] {
		switch {
		case strings.HasPrefix(l, "-"):
			minus++
		case strings.HasPrefix(l, "+"):
			plus++
		}
	}
	if minus != 1 || plus != 1 {
		t.Errorf("diff should change exactly one line:\n%s", d)
	}
}

func TestForwardAndObservers(t *testing.T) {
	s := readSession(t, "direct-chat.jsonl")
	var fw forward
	var events, ticks []string
	rep, err := replay.Play(context.Background(), s, opener(t, ""), replay.Options{
		Forward: &fw,
		OnEvent: func(e *replay.Event) { events = append(events, e.Content) },
		OnTick: func(n int, tk state.Tick) {
			var a struct{ Action string }
			_ = json.Unmarshal(tk.Action, &a)
			ticks = append(ticks, a.Action)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Divergence != nil {
		t.Fatal(rep.Divergence)
	}
	if len(events) != 4 || events[0] != "hey juni, you on shift tonight?" {
		t.Errorf("events = %q", events)
	}
	want := "send_message send_message continue send_message send_message"
	if got := strings.Join(ticks, " "); got != want {
		t.Errorf("ticks = %s, want %s", got, want)
	}
	if len(fw.sent) != 4 || !strings.HasPrefix(fw.sent[0].Content, "on shift") || fw.sent[0].ChannelID != "console" {
		t.Errorf("forwarded %+v", fw.sent)
	}
}

type forward struct{ sent []state.Outgoing }

func (f *forward) Send(_ context.Context, out state.Outgoing) (string, error) {
	f.sent = append(f.sent, out)
	return "ignored", nil
}

func TestWriteIsStable(t *testing.T) {
	// A shipped session written again comes out byte for byte the same.
	files, _ := filepath.Glob(filepath.Join(sessions, "*.jsonl"))
	for _, f := range files {
		raw := mustRead(t, f)
		ss, err := replay.Read(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		for _, s := range ss {
			if err := replay.Write(&b, s); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(b.Bytes(), raw) {
			t.Errorf("%s changes when written again", f)
		}
	}
}

// BenchmarkPlay replays the direct chat (8 ticks) through the whole
// runtime on a fresh SQLite store; ns/tick is what guarding a tuned prompt
// with replay costs per recorded model call.
func BenchmarkPlay(b *testing.B) {
	ss, err := replay.ReadFile(filepath.Join(sessions, "direct-chat.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	open := opener(b, "")
	ticks := len(ss[0].Ticks())
	var recorded time.Duration
	for _, tk := range ss[0].Ticks() {
		recorded += time.Duration(tk.LatencyMS) * time.Millisecond
	}
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		rep, err := replay.Play(context.Background(), ss[0], open, replay.Options{Prompts: true})
		if err != nil || rep.Divergence != nil {
			b.Fatal(err, rep.Divergence)
		}
	}
	per := time.Since(start) / time.Duration(b.N)
	b.ReportMetric(float64(per.Nanoseconds())/float64(ticks), "ns/tick")
	b.ReportMetric(float64(recorded)/float64(per), "x-recorded-latency")
}

// TestHeldBackSendReplays moves the message that held a send back to
// after the call's recorded latency, as a platform's coarse clock can: the
// send's result still says how many messages arrived during the call, and
// replay delivers that many while the call is in flight.
func TestHeldBackSendReplays(t *testing.T) {
	s := fresh(t, readSession(t, "aborted-send.jsonl"))
	ticks := s.Ticks()
	held, next := ticks[1], ticks[2]
	if !strings.HasPrefix(held.Result, "not sent: 1 new message") {
		t.Fatalf("tick 2 result %q, want a held-back send", held.Result)
	}
	moved := false
	for _, it := range s.Items {
		if it.Event != nil && it.Event.Time.After(held.Now) && it.Event.Time.Before(next.Now) {
			it.Event.Time = next.Now.Add(-time.Millisecond)
			moved = true
		}
	}
	if !moved {
		t.Fatal("no event between ticks 2 and 3")
	}
	rep, err := replay.Play(context.Background(), s, opener(t, ""), replay.Options{Prompts: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Divergence != nil {
		t.Fatalf("diverged: %s", rep.Divergence)
	}
	for _, c := range rep.Prompts {
		// Only the message's own time may show.
		if !strings.Contains(c.Diff, "need the first ferry time") {
			t.Errorf("tick %d changed beyond the moved message:\n%s", c.Tick, c.Diff)
		}
	}
}

// fresh returns the session with its requests rendered by today's prompts,
// so that a test of one prompt edit does not see other tuning done since
// the session was recorded.
func fresh(t *testing.T, s *replay.Session) *replay.Session {
	t.Helper()
	rep, err := replay.Play(context.Background(), s, opener(t, ""), replay.Options{Prompts: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Divergence != nil {
		t.Fatalf("diverged: %s", rep.Divergence)
	}
	f := replay.Refresh(s, rep)
	again, err := replay.Play(context.Background(), f, opener(t, ""), replay.Options{Prompts: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Prompts) != 0 {
		t.Fatalf("a refreshed session still renders differently:\n%s", again.Prompts[0].Diff)
	}
	return f
}

// TestExpectationsIgnoredByReplay labels every event and tick of the
// shipped sessions and checks that each replays exactly as without labels.
func TestExpectationsIgnoredByReplay(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(sessions, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			ss, err := replay.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s := ss[0]
			plain, err := replay.Play(context.Background(), s, opener(t, ""), replay.Options{Prompts: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range s.Items {
				switch {
				case it.Event != nil:
					it.Event.Expect = &replay.Expect{Reply: replay.ReplyNo, NotContains: "."}
				case it.Tick != nil:
					it.Tick.Expect = &replay.TickExpect{Action: "no_such_action"}
				}
			}
			var b bytes.Buffer
			if err := replay.Write(&b, s); err != nil {
				t.Fatal(err)
			}
			labelled, err := replay.Read(&b)
			if err != nil {
				t.Fatal(err)
			}
			got, err := replay.Play(context.Background(), labelled[0], opener(t, ""), replay.Options{Prompts: true})
			if err != nil {
				t.Fatal(err)
			}
			if got.Divergence != nil || plain.Divergence != nil {
				t.Fatalf("divergence with labels %v, without %v", got.Divergence, plain.Divergence)
			}
			if got.Replayed != plain.Replayed || len(got.Prompts) != len(plain.Prompts) {
				t.Errorf("with labels %d ticks, %d prompt changes; without %d, %d", got.Replayed, len(got.Prompts), plain.Replayed, len(plain.Prompts))
			}
		})
	}
}

// notesAtClose is a runtime that keeps the notes its store held when the
// replay closed it.
type notesAtClose struct {
	replay.Runtime
	store state.Store
	notes *[]state.Note
}

func (r notesAtClose) Close() error {
	ns, err := r.store.Notes(context.Background(), state.NoteFilter{})
	if err == nil {
		*r.notes = ns
	}
	return errors.Join(err, r.Runtime.Close())
}

// TestReplayReproducesMemory replays the recorded session with remember
// and forget: the same notes come out, and every prompt that shows them
// renders byte for byte as recorded.
func TestReplayReproducesMemory(t *testing.T) {
	s := readSession(t, "memory.jsonl")
	var notes []state.Note
	open := opener(t, "")
	rep, err := replay.Play(context.Background(), s, func(ctx context.Context, w replay.Wiring) (replay.Runtime, error) {
		rt, err := open(ctx, w)
		if err != nil {
			return nil, err
		}
		st, ok := rt.(interface{ Store() state.Store })
		if !ok {
			return nil, errors.New("the replayed bot does not show its store")
		}
		return notesAtClose{Runtime: rt, store: st.Store(), notes: &notes}, nil
	}, replay.Options{Prompts: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Divergence != nil {
		t.Fatalf("diverged: %s", rep.Divergence)
	}
	for _, c := range rep.Prompts {
		t.Errorf("tick %d renders differently:\n%s", c.Tick, c.Diff)
	}
	if len(notes) != 1 || notes[0].ID != 1 || notes[0].Text != "Ada is vegan: no fish, no dairy" || notes[0].Tick == 0 {
		t.Errorf("notes after replay: %+v", notes)
	}
	shown := 0
	for _, tk := range s.Ticks() {
		if strings.Contains(tk.Request[0].Content, "# Memory\n") {
			shown++
		}
	}
	if shown < 5 {
		t.Errorf("%d recorded requests show the memory section, want the ticks after the first remember", shown)
	}
}
