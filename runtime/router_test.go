package runtime

import (
	"context"
	"errors"
	"testing"

	"github.com/airi-go/airi/state"
)

// fakeSender records what it is asked to send.
type fakeSender struct {
	name string
	sent []state.Outgoing
}

func (f *fakeSender) Name() string { return f.name }

func (f *fakeSender) Send(_ context.Context, out state.Outgoing) (string, error) {
	f.sent = append(f.sent, out)
	return f.name + "-1", nil
}

// partsSender also says how many messages a text becomes: one per 10 bytes.
type partsSender struct{ fakeSender }

func (p *partsSender) Parts(out state.Outgoing) int { return (len(out.Content) + 9) / 10 }

func TestRouterSend(t *testing.T) {
	for _, tc := range []struct {
		name      string
		telegram  bool // a Telegram adapter runs
		satori    bool // a Satori adapter runs
		qualified bool // Satori qualifies its own ids
		channel   string
		want      string // the adapter that sends; empty: an error
		wantID    string // the channel id the adapter is given
	}{
		{name: "one adapter takes every id as its own", telegram: true, channel: "-1001", want: "telegram", wantID: "-1001"},
		{name: "one adapter, an id with a colon", satori: true, channel: "qq:42", want: "satori", wantID: "qq:42"},
		{name: "two adapters, by the platform prefix", telegram: true, satori: true, qualified: true, channel: "telegram:-1001", want: "telegram", wantID: "-1001"},
		{name: "two adapters, a login's platform goes to the self-qualifying adapter", telegram: true, satori: true, qualified: true, channel: "qq:42", want: "satori", wantID: "qq:42"},
		{name: "two adapters, an unqualified id names none", telegram: true, satori: true, qualified: true, channel: "42"},
		{name: "two adapters neither qualifying, an unknown platform", telegram: true, satori: true, channel: "qq:42"},
		{name: "two adapters neither qualifying, by name", telegram: true, satori: true, channel: "satori:42", want: "satori", wantID: "42"},
		{name: "no adapter", channel: "42"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg, sa := &fakeSender{name: "telegram"}, &fakeSender{name: "satori"}
			var ads []Adapter
			if tc.telegram {
				ads = append(ads, Adapter{Sender: tg})
			}
			if tc.satori {
				ads = append(ads, Adapter{Sender: sa, SelfQualified: tc.qualified})
			}
			r := newRouter(ads...)
			id, err := r.Send(context.Background(), state.Outgoing{ChannelID: tc.channel, Content: "hi"})
			if tc.want == "" {
				if err == nil {
					t.Fatalf("Send to %q went out as %q, want an error", tc.channel, id)
				}
				if len(tg.sent)+len(sa.sent) != 0 {
					t.Errorf("an adapter sent after an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if id != tc.want+"-1" {
				t.Errorf("sent id = %q, want %q", id, tc.want+"-1")
			}
			got := tg
			if tc.want == "satori" {
				got = sa
			}
			if len(got.sent) != 1 || got.sent[0].ChannelID != tc.wantID {
				t.Errorf("%s was asked to send %+v, want one message to %q", tc.want, got.sent, tc.wantID)
			}
			if len(tg.sent)+len(sa.sent) != 1 {
				t.Errorf("%d messages sent, want 1", len(tg.sent)+len(sa.sent))
			}
		})
	}
}

func TestRouterQualify(t *testing.T) {
	tg, sa := &fakeSender{name: "telegram"}, &fakeSender{name: "satori"}
	for _, tc := range []struct {
		name    string
		router  *router
		adapter string
		id      string
		want    string
	}{
		{"one adapter keeps the platform's id", newRouter(Adapter{Sender: tg}), "telegram", "-1001", "-1001"},
		{"two adapters prefix the adapter's name", newRouter(Adapter{Sender: tg}, Adapter{Sender: sa, SelfQualified: true}), "telegram", "-1001", "telegram:-1001"},
		{"a self-qualifying adapter's id is kept", newRouter(Adapter{Sender: tg}, Adapter{Sender: sa, SelfQualified: true}), "satori", "qq:42", "qq:42"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.router.qualify(tc.adapter, tc.id)
			if got != tc.want {
				t.Errorf("qualify(%q, %q) = %q, want %q", tc.adapter, tc.id, got, tc.want)
			}
			// What the model sees routes back to the same adapter and id.
			a, native, err := tc.router.resolve(got)
			if err != nil || a.Name() != tc.adapter || native != tc.id {
				t.Errorf("resolve(%q) = %v, %q, %v; want %s, %q", got, a, native, err, tc.adapter, tc.id)
			}
		})
	}
}

func TestRouterParts(t *testing.T) {
	tg := &partsSender{fakeSender{name: "telegram"}}
	sa := &fakeSender{name: "satori"}
	r := newRouter(Adapter{Sender: tg}, Adapter{Sender: sa, SelfQualified: true})
	for _, tc := range []struct {
		name    string
		channel string
		content string
		want    int
	}{
		{"the adapter counts its parts", "telegram:-1001", "twenty-five characters ok", 3},
		{"an adapter that does not count sends one", "qq:42", "twenty-five characters ok", 1},
		{"an unknown channel counts one; Send says why", "nowhere", "twenty-five characters ok", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.Parts(state.Outgoing{ChannelID: tc.channel, Content: tc.content}); got != tc.want {
				t.Errorf("Parts = %d, want %d", got, tc.want)
			}
		})
	}
	if _, err := r.Send(context.Background(), state.Outgoing{ChannelID: "nowhere", Content: "x"}); err == nil || errors.Is(err, context.Canceled) {
		t.Errorf("Send to an unknown channel: err = %v, want one naming the channel", err)
	}
}

func TestRouterServes(t *testing.T) {
	r := newRouter(Adapter{Sender: &fakeSender{name: "telegram"}})
	if !r.serves("telegram") || r.serves("satori") {
		t.Errorf("serves: telegram %v, satori %v; want true, false", r.serves("telegram"), r.serves("satori"))
	}
}
