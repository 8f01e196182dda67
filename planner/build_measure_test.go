package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tiktoken-go/tokenizer"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/state"
)

// Figures of the TypeScript reference bot, measured with the o200k encoding
// on a 30-message conversation: prompt tokens per call, and the length of
// its persona file.
const (
	referenceTokensPerCall = 4070
	referencePersonaTokens = 1751
)

// requestTokens counts a request's prompt tokens the way chat completion
// APIs do: each message's content plus a few tokens of framing.
func requestTokens(t testing.TB, enc tokenizer.Codec, msgs []state.ChatMessage) int {
	t.Helper()
	n := 3
	for _, m := range msgs {
		c, err := enc.Count(m.Content)
		if err != nil {
			t.Fatal(err)
		}
		n += c + 4
	}
	return n
}

func o200k(t testing.TB) tokenizer.Codec {
	t.Helper()
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

func TestPrefixShare(t *testing.T) {
	a := []state.ChatMessage{{Role: "system", Content: "S"}, {Role: "user", Content: "state 1"}}
	b := []state.ChatMessage{{Role: "system", Content: "S"}, {Role: "user", Content: "Ada: hi"}, {Role: "user", Content: "state 2"}}
	if got := PrefixShare(a, a); got != 1 {
		t.Errorf("identical requests share %v, want 1", got)
	}
	got := PrefixShare(a, b)
	want := float64(len(`[{"role":"system","content":"S"},{"role":"user","content":"`)) / float64(len(mustJSON(t, b)))
	if got != want {
		t.Errorf("share = %v, want %v", got, want)
	}
	if PrefixShare(nil, nil) != 0 {
		t.Error("empty request shares something")
	}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDefaultRequestTokens measures the default request of a 20-message
// group chat.
func TestDefaultRequestTokens(t *testing.T) {
	enc := o200k(t)
	b := newTestBuilder(t, "", BuilderOptions{})
	for _, platform := range []string{"telegram", "satori", "console"} {
		p, err := b.Build(context.Background(), fixture(platform, true))
		if err != nil {
			t.Fatal(err)
		}
		total := requestTokens(t, enc, p.Messages)
		sys := requestTokens(t, enc, p.Messages[:1])
		t.Logf("%s group, 20-message window: %d prompt tokens (system %d, of which persona %d)",
			platform, total, sys, sectionTokens(t, enc, p, "persona"))
		if total > referenceTokensPerCall/2 {
			t.Errorf("%s: default request of %d tokens exceeds half the reference's %d", platform, total, referenceTokensPerCall)
		}
	}
}

func sectionTokens(t testing.TB, enc tokenizer.Codec, p Prompt, name string) int {
	for _, s := range p.Sections {
		if s.Name == name {
			n, err := enc.Count(s.Text(p.Messages))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	return 0
}

// simStore is the part of a store the conversation needs: every message of
// one channel in arrival order, and the action history.
type simStore struct {
	msgs    []state.Message
	actions []state.ActionRecord
}

func (s *simStore) history(limit int) ([]state.Message, int) {
	var shown []state.Message
	for _, m := range s.msgs {
		if m.Read || m.Self {
			shown = append(shown, m)
		}
	}
	total := len(shown)
	if len(shown) > limit {
		shown = shown[len(shown)-limit:]
	}
	return append([]state.Message(nil), shown...), total
}

func (s *simStore) unread() []state.Message {
	var out []state.Message
	for _, m := range s.msgs {
		if !m.Read && !m.Self {
			out = append(out, m)
		}
	}
	return out
}

func (s *simStore) markRead(ids map[int64]bool) {
	for i := range s.msgs {
		if ids[s.msgs[i].ID] {
			s.msgs[i].Read = true
		}
	}
}

// ScriptBatch is messages that arrive together and the bot's reply to
// them ("" = it continues without replying).
type ScriptBatch struct {
	Lines []string // "Sender: text"
	Reply string
}

// conversation is a scripted 30-message group chat: batches of messages
// that arrive together, and whether the bot answers the batch.
var conversation = []ScriptBatch{
	{[]string{"Ada: evening all", "Bo: evening"}, ""},
	{[]string{"Ada: @Juni are you around? need a telescope opinion"}, "always. what's the question?"},
	{[]string{"Ada: 80mm refractor or 130mm reflector for a beginner?"}, "the refractor. no collimation, cools fast, forgives you. the reflector shows more but asks for patience"},
	{[]string{"Cyril: I had a reflector, collimation drove me mad"}, ""},
	{[]string{"Bo: what's collimation", "Cyril: lining up the mirrors so stars aren't blobs"}, ""},
	{[]string{"Ada: ok refractor it is. Juni what should I look at first?"}, "the moon, near the terminator line. craters throw long shadows there. then saturn if you can stay up"},
	{[]string{"Bo: saturn is up this month?"}, "late evening, low in the south-west. the rings are tilted thin this year, still worth it"},
	{[]string{"Cyril: anyone going to the pier friday?", "Ada: if it's clear", "Bo: forecast says clouds"}, ""},
	{[]string{"Cyril: forecast always says clouds"}, ""},
	{[]string{"Ada: Juni, do you ever sleep?"}, "between tides. the radio station is quiet after three"},
	{[]string{"Bo: lol", "Cyril: what does a harbour radio station even do at night"}, ""},
	{[]string{"Cyril: @Juni seriously, what do you do there"}, "weather bulletins, ferry check-ins, and a lot of tea. sometimes a lost fishing boat"},
	{[]string{"Ada: that sounds lovely actually"}, ""},
	{[]string{"Bo: sounds cold", "Ada: bring gloves"}, "it is. hence the tea"},
	{[]string{"Ada: back to telescopes, do I need a special eyepiece?", "Cyril: the stock ones are usually fine to start"}, ""},
	{[]string{"Ada: Juni agree?"}, "mostly. get a cheap 2x barlow later, skip the kit with twenty filters"},
	{[]string{"Bo: filters for what", "Ada: moon is bright I guess", "Cyril: a moon filter helps, yes"}, ""},
	{[]string{"Bo: ok I'm convinced, I'll come friday", "Ada: yay", "Bo: I'll bring biscuits"}, ""},
	{[]string{"Cyril: Juni will you come to the pier?"}, "can't, I'm on shift. report back with sketches"},
}

type simResult struct {
	calls       int
	tokens      []int
	shares      []float64 // of calls after the first
	userMsgs    int
	personaToks int
}

// simulate plays the conversation through the Builder as the runtime
// would: each batch wakes the channel; the first tick delivers the batch;
// the bot replies then continues, or continues at once.
func simulate(t *testing.T, b *Builder, enc tokenizer.Codec) simResult {
	t.Helper()
	ctx := context.Background()
	ch := state.Channel{ID: "-1001234567890", Platform: "telegram", Group: true, Title: "Harbour Lights"}
	st := &simStore{}
	var res simResult
	var prev []state.ChatMessage
	clock := time.Date(2026, 3, 14, 20, 0, 0, 0, time.UTC)
	nextID := int64(1)
	members := map[string]bool{}
	tick := func(wake int64, incoming []state.Message) Prompt {
		t.Helper()
		hist, total := st.history(b.HistoryLimit())
		names := make([]string, 0, len(members))
		for n := range members {
			names = append(names, n)
		}
		sort.Strings(names)
		c := ch
		c.Members = names
		p, err := b.Build(ctx, Input{
			Channel: c, History: hist, HistoryTotal: total, Incoming: incoming,
			Actions: append([]state.ActionRecord(nil), st.actions...), Wake: wake,
			Unread: map[string]int{}, Channels: []state.Channel{c}, Now: clock,
		})
		if err != nil {
			t.Fatal(err)
		}
		res.calls++
		res.tokens = append(res.tokens, requestTokens(t, enc, p.Messages))
		if prev != nil {
			res.shares = append(res.shares, PrefixShare(prev, p.Messages))
		}
		prev = p.Messages
		if res.personaToks == 0 {
			res.personaToks = sectionTokens(t, enc, p, "persona")
		}
		clock = clock.Add(20 * time.Second)
		return p
	}
	record := func(wake int64, act string, result string) {
		var head struct {
			Action string `json:"action"`
		}
		_ = json.Unmarshal([]byte(act), &head)
		st.actions = append(st.actions, state.ActionRecord{ChannelID: ch.ID, Wake: wake, Action: json.RawMessage(act), Name: head.Action, OK: true, Result: result, Time: clock})
	}
	for i, batch := range conversation {
		wake := int64(i + 1)
		for _, l := range batch.Lines {
			sender, text, _ := strings.Cut(l, ": ")
			members[sender] = true
			st.msgs = append(st.msgs, state.Message{ID: nextID, ChannelID: ch.ID, PlatformID: fmt.Sprint(7000 + nextID), SenderName: sender, Content: text, Time: clock, Mentioned: strings.Contains(text, "Juni")})
			nextID++
			res.userMsgs++
			clock = clock.Add(40 * time.Second)
		}
		incoming := st.unread()
		tick(wake, incoming)
		ids := map[int64]bool{}
		for _, m := range incoming {
			ids[m.ID] = true
		}
		st.markRead(ids)
		if batch.Reply != "" {
			act := fmt.Sprintf(`{"action":"send_message","channelId":%q,"content":%q}`, ch.ID, batch.Reply)
			st.msgs = append(st.msgs, state.Message{ID: nextID, ChannelID: ch.ID, SenderName: "Juni", Self: true, Content: batch.Reply, Time: clock})
			nextID++
			record(wake, act, fmt.Sprintf("sent to %q", ch.ID))
			tick(wake, nil)
		}
		record(wake, `{"action":"continue"}`, "waiting for something new")
	}
	return res
}

func summarize(r simResult) (avgTokens, avgShare, minShare float64, below int) {
	for _, n := range r.tokens {
		avgTokens += float64(n)
	}
	avgTokens /= float64(len(r.tokens))
	minShare = 1
	for _, s := range r.shares {
		avgShare += s
		minShare = min(minShare, s)
		if s < 0.9 {
			below++
		}
	}
	avgShare /= float64(len(r.shares))
	return
}

// TestConversationCostAndPrefix plays a scripted 30-message group
// conversation and measures prompt tokens per call and how much of each
// request repeats the start of the previous one (prefix cache reuse), with
// the default persona and with one as long as the reference bot's.
func TestConversationCostAndPrefix(t *testing.T) {
	enc := o200k(t)
	n := 0
	for _, b := range conversation {
		n += len(b.Lines)
	}
	if n != 30 {
		t.Fatalf("conversation has %d messages, want 30", n)
	}

	longPersona := t.TempDir()
	WriteLongPersona(t, longPersona)

	for _, tc := range []struct {
		name     string
		dir      string
		minShare float64
	}{
		// The compact default persona makes the system message short, so
		// the per-tick tail weighs more (about 115 tokens of 890 change
		// per call); the target is checked on a persona as long as the
		// reference bot's.
		{"default persona", "", 0.86},
		{"reference-length persona", longPersona, 0.95},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg, err := actions.NewBuiltinRegistry(actions.Handlers{})
			if err != nil {
				t.Fatal(err)
			}
			src, err := prompts.Load(tc.dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := simulate(t, NewBuilder(src, reg, BuilderOptions{}), enc)
			avgTokens, avgShare, minShare, below := summarize(r)
			t.Logf("%d user messages, %d calls (%.2f per message); persona %d tokens; %.0f prompt tokens per call (%.0f%% of the reference's %d); prefix reuse %.1f%% on average, min %.1f%%, %d of %d calls below 90%%",
				r.userMsgs, r.calls, float64(r.calls)/float64(r.userMsgs), r.personaToks, avgTokens, 100*avgTokens/referenceTokensPerCall, referenceTokensPerCall,
				100*avgShare, 100*minShare, below, len(r.shares))
			if avgShare < tc.minShare {
				t.Errorf("average prefix reuse %.3f, want at least %.2f", avgShare, tc.minShare)
			}
			if avgTokens > 0.60*referenceTokensPerCall {
				t.Errorf("%.0f tokens per call, want at most 60%% of %d", avgTokens, referenceTokensPerCall)
			}
		})
	}
}

// Exported to the loop measurement in package planner_test.
var (
	ScriptedConversation = conversation
	ReferenceTokens      = referenceTokensPerCall
)

// CountRequestTokens counts a request's o200k prompt tokens.
func CountRequestTokens(t testing.TB, msgs []state.ChatMessage) int {
	t.Helper()
	return requestTokens(t, o200k(t), msgs)
}

// WriteLongPersona writes a persona.md into dir as long as the reference
// bot's persona (in o200k tokens), built from sentences of our own.
func WriteLongPersona(t testing.TB, dir string) {
	t.Helper()
	enc := o200k(t)
	var body strings.Builder
	for {
		c, err := enc.Count(body.String())
		if err != nil {
			t.Fatal(err)
		}
		if c >= referencePersonaTokens {
			break
		}
		body.WriteString("You are Juni, and you keep a logbook of every clear night since the ferry years, with notes on the tides, the moths at the lamp and the tea that got you through. ")
	}
	if err := os.WriteFile(filepath.Join(dir, "persona.md"), []byte("---\nsection: persona\nname: Juni\n---\n"+body.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
