package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/airi-go/airi/internal/tokens"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/state"
)

// floodInput is a group chat whose history holds n read messages of size
// bytes each from sender, and one new message.
func floodInput(n, size int, sender string) Input {
	ch := state.Channel{ID: "-100", Platform: "telegram", Group: true, Title: "t", Members: []string{"Ada", sender}}
	in := Input{Platform: "telegram", Channel: ch, Now: testNow, Wake: 1}
	for i := range n {
		in.History = append(in.History, state.Message{ID: int64(i + 1), ChannelID: ch.ID, PlatformID: fmt.Sprint(i + 1),
			SenderName: sender, Content: longText(i, size), Time: testNow.Add(time.Duration(i-n) * time.Minute), Read: true})
	}
	in.HistoryTotal = n
	in.Incoming = []state.Message{{ID: int64(n + 1), ChannelID: ch.ID, PlatformID: fmt.Sprint(n + 1), SenderName: sender, Content: "hello?", Time: testNow}}
	return in
}

// longText is English prose of size bytes, numbered.
func longText(i, size int) string {
	s := fmt.Sprintf("message %d ", i) + strings.Repeat("the quick brown fox jumps over the lazy dog ", size/44+1)
	return s[:size]
}

func build(t testing.TB, b *Builder, in Input) Prompt {
	t.Helper()
	p, err := b.Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRequestStaysWithinBudget: whatever the chat holds, the request fits
// the budget, as the o200k tokenizer counts it.
func TestRequestStaysWithinBudget(t *testing.T) {
	enc := tokens.New()
	huge := strings.Repeat("N", 10<<10)
	tests := []struct {
		name      string
		maxTokens int
		in        Input
	}{
		{"twenty 4 KB messages", 0, floodInput(20, 4096, "Ada")},
		{"twenty 16 KB messages", 0, floodInput(20, state.MaxContentBytes, "Ada")},
		{"10 KB display name", 0, floodInput(20, 40, huge)},
		{"small budget", 3000, floodInput(20, 4096, "Ada")},
		{"twenty CJK messages", 0, func() Input {
			in := floodInput(20, 10, "Ada")
			for i := range in.History {
				in.History[i].Content = strings.Repeat("漢字かな交じり文", 500)
			}
			return in
		}()},
		{"twenty 4 KB new messages", 0, func() Input {
			in := floodInput(20, 40, "Ada")
			in.Incoming = nil
			for i := range 20 {
				in.Incoming = append(in.Incoming, state.Message{ID: int64(100 + i), ChannelID: "-100", SenderName: "Bo", Content: longText(i, 4096), Time: testNow})
			}
			return in
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newTestBuilder(t, "", BuilderOptions{MaxTokens: tt.maxTokens})
			p := build(t, b, tt.in)
			limit := b.opts.MaxTokens
			got := enc.Request(p.Messages)
			if got > limit {
				t.Errorf("request of %d tokens, budget %d", got, limit)
			}
			if p.Tokens != got {
				t.Errorf("Prompt.Tokens = %d, counted %d", p.Tokens, got)
			}
			if len(p.Shown) == 0 {
				t.Errorf("no new message shown")
			}
			for _, m := range p.Messages {
				if strings.Contains(m.Content, huge[:prompts.MaxNameRunes+1]) {
					t.Errorf("a %s message holds the display name uncut", m.Role)
				}
			}
		})
	}
}

// TestLongMessagesAreCutWithAMarker: a long message in the history is cut
// to prompts.MaxHistoryRunes, a new one to prompts.MaxMessageRunes, both
// with a marker saying so.
func TestLongMessagesAreCutWithAMarker(t *testing.T) {
	b := newTestBuilder(t, "", BuilderOptions{})
	in := floodInput(3, 4096, "Ada")
	in.Incoming[0].Content = longText(99, 6000)
	p := build(t, b, in)
	hist := p.Messages[1]
	if !strings.Contains(hist.Content, "[… 3096 more characters cut]") {
		t.Errorf("history message not cut with a marker: %.200q…", hist.Content)
	}
	if n := utf8.RuneCountInString(hist.Content); n > prompts.MaxHistoryRunes+64 {
		t.Errorf("history turn of %d runes", n)
	}
	st := p.Messages[len(p.Messages)-1].Content
	if !strings.Contains(st, longText(99, 6000)[:prompts.MaxMessageRunes-10]) || !strings.Contains(st, "[… 2000 more characters cut]") {
		t.Errorf("new message not kept up to %d runes with a marker:\n%.300s", prompts.MaxMessageRunes, st)
	}
}

// TestIncomingBeyondBudgetWaits: new messages beyond the state's share of
// the budget are left for the next tick and counted as remaining; Shown
// names exactly those the state message shows.
func TestIncomingBeyondBudgetWaits(t *testing.T) {
	b := newTestBuilder(t, "", BuilderOptions{})
	in := floodInput(5, 40, "Ada")
	in.Incoming = nil
	for i := range 20 {
		in.Incoming = append(in.Incoming, state.Message{ID: int64(100 + i), ChannelID: "-100", PlatformID: fmt.Sprint(100 + i),
			SenderName: "Bo", Content: longText(i, 2000), Time: testNow})
	}
	in.Remaining = 7
	in.Unread = map[string]int{"-100": 7}
	p := build(t, b, in)
	st := p.Messages[len(p.Messages)-1].Content
	if len(p.Shown) == 0 || len(p.Shown) >= 20 {
		t.Fatalf("showed %d of 20 new messages of 2,000 characters", len(p.Shown))
	}
	for i, m := range in.Incoming {
		shown := i < len(p.Shown)
		if shown && p.Shown[i] != m.ID {
			t.Errorf("Shown[%d] = %d, want %d (oldest first)", i, p.Shown[i], m.ID)
		}
		if in := strings.Contains(st, fmt.Sprintf("- id %d ", 100+i)); in != shown {
			t.Errorf("message %d in the state message = %v, in Shown = %v", 100+i, in, shown)
		}
	}
	left := 20 - len(p.Shown)
	if want := fmt.Sprintf("%d more unread here", 7+left); !strings.Contains(st, want) {
		t.Errorf("state message lacks %q:\n%s", want, st)
	}
	if want := fmt.Sprintf(`"-100" "t": %d`, 7+left); !strings.Contains(st, want) {
		t.Errorf("unread count lacks %q:\n%s", want, st)
	}
}

// TestHistoryTrimsInStableBlocks: as a chat of long messages grows one
// message per tick, the history gives way in blocks and the window start
// stays put between them, so most consecutive requests share their
// prefix.
func TestHistoryTrimsInStableBlocks(t *testing.T) {
	b := newTestBuilder(t, "", BuilderOptions{MaxTokens: 6000})
	var all []state.Message
	starts := map[int64]bool{}
	var prev []state.ChatMessage
	shared := 0
	const ticks = 60
	for i := range ticks {
		all = append(all, state.Message{ID: int64(i + 1), ChannelID: "-100", PlatformID: fmt.Sprint(i + 1), SenderName: "Ada",
			Content: longText(i, 3000), Time: testNow, Read: true})
		in := floodInput(0, 0, "Ada")
		in.History = all[max(len(all)-20, 0):]
		in.HistoryTotal = len(all)
		p := build(t, b, in)
		if p.Tokens > 6000 {
			t.Fatalf("tick %d: %d tokens over the budget", i, p.Tokens)
		}
		if len(p.Messages) > 2 {
			first := p.Messages[1].Content
			var id int64
			fmt.Sscanf(first, `Ada: "message %d`, &id)
			starts[id] = true
			if id%5 != 0 {
				t.Errorf("tick %d: window starts at message %d, not on a block boundary", i, id)
			}
		}
		if len(prev) > 2 && len(p.Messages) > 2 && prev[1].Equal(p.Messages[1]) {
			shared++
		}
		prev = p.Messages
	}
	if len(starts) > ticks/4 {
		t.Errorf("window start moved %d times in %d ticks", len(starts), ticks)
	}
	if shared < ticks*2/3 {
		t.Errorf("only %d of %d consecutive requests kept their first history turn", shared, ticks)
	}
}

// TestShrinkHalvesTheHistory: after a context-length refusal the scheduler
// asks for a smaller request; the history gives way.
func TestShrinkHalvesTheHistory(t *testing.T) {
	b := newTestBuilder(t, "", BuilderOptions{})
	in := floodInput(20, 2000, "Ada")
	full := build(t, b, in)
	in.Shrink = 1
	half := build(t, b, in)
	if len(half.Messages) >= len(full.Messages) || half.Tokens >= full.Tokens {
		t.Errorf("shrunk request has %d messages, %d tokens; full one %d, %d", len(half.Messages), half.Tokens, len(full.Messages), full.Tokens)
	}
}

// TestNamesCappedEverywhere: a 10 KB display name or title does not reach
// the request whole, and the system message stays about its usual size.
func TestNamesCappedEverywhere(t *testing.T) {
	b := newTestBuilder(t, "", BuilderOptions{})
	base := build(t, b, floodInput(20, 40, "Ada"))
	huge := strings.Repeat("Ü", 10<<10)
	in := floodInput(20, 40, huge)
	in.Channel.Title = huge
	in.Channels = []state.Channel{in.Channel, {ID: "other", Title: huge}}
	in.Unread = map[string]int{"other": 2}
	p := build(t, b, in)
	if grow := len(p.Messages[0].Content) - len(base.Messages[0].Content); grow > 4*(prompts.MaxNameRunes+prompts.MaxTitleRunes) {
		t.Errorf("system message grew by %d bytes with a 10 KB name and title", grow)
	}
	for _, m := range p.Messages {
		if strings.Contains(m.Content, strings.Repeat("Ü", prompts.MaxTitleRunes+1)) {
			t.Errorf("%s message holds a name or title uncut", m.Role)
		}
	}
}

// TestMeasureBudgetCases reports the request sizes quoted in the request
// size section of docs/ticks.md (run with -v).
func TestMeasureBudgetCases(t *testing.T) {
	enc := tokens.New()
	b := newTestBuilder(t, "", BuilderOptions{})
	for _, c := range []struct {
		name string
		in   Input
	}{
		{"twenty 4 KB messages", floodInput(20, 4096, "Ada")},
		{"10 KB display name", floodInput(20, 40, strings.Repeat("N", 10<<10))},
		{"short chat", floodInput(20, 40, "Ada")},
	} {
		p := build(t, b, c.in)
		t.Logf("%s: request %d tokens, system %d bytes", c.name, enc.Request(p.Messages), len(p.Messages[0].Content))
	}
}

// TestTokenCountsFollowContent: the counts remembered per message id are
// not reused for another message under the same id (a replay, another
// store), which would trim the history for nothing.
func TestTokenCountsFollowContent(t *testing.T) {
	enc := tokens.New()
	b := newTestBuilder(t, "", BuilderOptions{})
	build(t, b, floodInput(20, 4096, "Ada"))
	short := floodInput(20, 40, "Ada")
	p := build(t, b, short)
	if got := enc.Request(p.Messages); p.Tokens != got || len(p.Messages) != 22 {
		t.Errorf("Tokens = %d (counted %d), %d messages: want the whole 20-message window", p.Tokens, got, len(p.Messages))
	}
}
