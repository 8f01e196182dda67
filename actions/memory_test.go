package actions_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/state"
)

// memoryFixture has a direct chat "dm" with Ada and a group "grp" where
// Ada and Bo wrote.
func memoryFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	ctx := context.Background()
	for _, ch := range []state.Channel{{ID: "dm", Platform: "telegram"}, {ID: "grp", Platform: "telegram", Group: true}} {
		if err := f.st.UpsertChannel(ctx, ch); err != nil {
			t.Fatal(err)
		}
	}
	for i, m := range []state.Message{
		{ChannelID: "dm", PlatformID: "1", SenderID: "ada", SenderName: "Ada", Content: "hi"},
		{ChannelID: "grp", PlatformID: "2", SenderID: "ada", SenderName: "Ada", Content: "hey all"},
		{ChannelID: "grp", PlatformID: "3", SenderID: "bo", SenderName: "Bo", Content: "yo"},
	} {
		m.Time = time.Unix(int64(1000+i), 0)
		if _, _, err := f.st.Ingest(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func notes(t *testing.T, f *fixture) []state.Note {
	t.Helper()
	ns, err := f.st.Notes(context.Background(), state.NoteFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

func TestRemember(t *testing.T) {
	tests := []struct {
		name    string
		channel string
		raw     string
		ok      bool
		text    string // part of the result
		want    state.Note
	}{
		{name: "direct chat, about left out", channel: "dm", raw: `remember {"scope":"user","content":"Ada is vegetarian"}`, ok: true,
			text: `about "Ada", shown only in direct chats`, want: state.Note{Scope: state.ScopeUser, Subject: "ada", Name: "Ada", Text: "Ada is vegetarian"}},
		{name: "group, by name", channel: "grp", raw: `remember {"scope":"user","about":"bo","content":"Bo plays bass","shareable":true}`, ok: true,
			text: "also shown in groups", want: state.Note{Scope: state.ScopeUser, Subject: "bo", Name: "Bo", Text: "Bo plays bass", Shareable: true}},
		{name: "group, by id with @", channel: "grp", raw: `remember {"scope":"user","about":"@ada","content":"Ada sings"}`, ok: true,
			want: state.Note{Scope: state.ScopeUser, Subject: "ada", Name: "Ada", Text: "Ada sings"}},
		{name: "channel", channel: "grp", raw: `remember {"scope":"channel","content":"quiz on fridays","shareable":true}`, ok: true,
			text: "shown only here", want: state.Note{Scope: state.ScopeChannel, Subject: "grp", Text: "quiz on fridays"}},
		{name: "global", channel: "dm", raw: `remember {"scope":"global","content":"the harbour opens at six"}`, ok: true,
			want: state.Note{Scope: state.ScopeGlobal, Text: "the harbour opens at six"}},
		{name: "group without about", channel: "grp", raw: `remember {"scope":"user","content":"someone likes tea"}`, text: "say whom the note is about"},
		{name: "nobody of that name", channel: "grp", raw: `remember {"scope":"user","about":"Cy","content":"Cy likes tea"}`, text: `no one called "Cy" wrote here recently; people here: "Bo", "Ada"`},
		{name: "blank content", channel: "dm", raw: `remember {"scope":"global","content":"   "}`, text: "the content is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := memoryFixture(t)
			res := f.run(t, tt.raw, actions.Call{Channel: tt.channel})
			if res.OK != tt.ok || !res.Next || !strings.Contains(res.Text, tt.text) {
				t.Fatalf("result %+v; want ok=%v, next, text containing %q", res, tt.ok, tt.text)
			}
			ns := notes(t, f)
			if !tt.ok {
				if len(ns) != 0 || len(res.Notes) != 0 || !strings.HasPrefix(res.Text, "nothing remembered: ") {
					t.Errorf("refused remember stored %+v (result %+v)", ns, res)
				}
				return
			}
			if len(ns) != 1 || len(res.Notes) != 1 || res.Notes[0] != ns[0].ID {
				t.Fatalf("notes %+v, result notes %v", ns, res.Notes)
			}
			got := ns[0]
			got.ID, got.Created, got.Updated = 0, time.Time{}, time.Time{}
			if got != tt.want {
				t.Errorf("stored %+v, want %+v", got, tt.want)
			}
			if len(res.Effects) != 1 || res.Effects[0].Kind != actions.EffectRemember || res.Effects[0].Content != tt.want.Text {
				t.Errorf("effects %+v", res.Effects)
			}
		})
	}
}

func TestRememberUnknownScopeStoresNothing(t *testing.T) {
	f := memoryFixture(t)
	// The schema refuses it before a handler runs; a handler called with
	// it anyway (a registry built without the schema's enum) refuses too.
	if _, err := f.reg.Decode("remember", []byte(`{"scope":"planet","content":"x"}`)); err == nil || !strings.Contains(err.Error(), "scope") {
		t.Fatalf("decode of an unknown scope: %v", err)
	}
	res := f.reg.Dispatch(context.Background(), actions.Call{Channel: "dm", Action: actions.Action{Name: "remember",
		Params: &actions.Remember{Scope: "planet", Content: "x"}}})
	if res.OK || !strings.Contains(res.Text, `unknown scope "planet"`) || len(notes(t, f)) != 0 {
		t.Errorf("result %+v, notes %v", res, notes(t, f))
	}
	long := &actions.Remember{Scope: "global", Content: strings.Repeat("é", state.MaxNoteRunes+1)}
	res = f.reg.Dispatch(context.Background(), actions.Call{Channel: "dm", Action: actions.Action{Name: "remember", Params: long}})
	if res.OK || !strings.Contains(res.Text, "more than the 500") || len(notes(t, f)) != 0 {
		t.Errorf("over the cap: result %+v, notes %v", res, notes(t, f))
	}
}

func TestRememberUpdateAndForget(t *testing.T) {
	f := memoryFixture(t)
	res := f.run(t, `remember {"scope":"user","content":"Ada is vegetarian"}`, actions.Call{Channel: "dm"})
	id := res.Effects[0].MessageID
	// The group may not see (nor change, nor delete) a private note.
	for _, raw := range []string{`remember {"scope":"user","about":"Ada","content":"changed","id":"` + id + `"}`, `forget {"id":"` + id + `"}`} {
		res := f.run(t, raw, actions.Call{Channel: "grp"})
		if res.OK || !strings.Contains(res.Text, "there is no note "+id+" here") {
			t.Errorf("%s in the group: %+v", raw, res)
		}
	}
	if ns := notes(t, f); len(ns) != 1 || ns[0].Text != "Ada is vegetarian" {
		t.Fatalf("notes after refused changes: %+v", ns)
	}
	res = f.run(t, `remember {"scope":"user","content":"Ada is vegan","id":"`+id+`"}`, actions.Call{Channel: "dm"})
	if !res.OK || !strings.HasPrefix(res.Text, "rewrote note "+id) {
		t.Fatalf("update: %+v", res)
	}
	if ns := notes(t, f); len(ns) != 1 || ns[0].Text != "Ada is vegan" {
		t.Fatalf("notes after update: %+v", ns)
	}
	for _, tt := range []struct{ raw, text string }{
		{`forget {"id":"x7"}`, `"x7" is not a note id`},
		{`forget {"id":"999"}`, "there is no note 999 here"},
	} {
		if res := f.run(t, tt.raw, actions.Call{Channel: "dm"}); res.OK || !strings.Contains(res.Text, tt.text) {
			t.Errorf("%s: %+v", tt.raw, res)
		}
	}
	res = f.run(t, `forget {"id":"`+id+`"}`, actions.Call{Channel: "dm"})
	if !res.OK || !strings.HasPrefix(res.Text, "forgot note "+id) || len(notes(t, f)) != 0 {
		t.Errorf("forget: %+v, notes %v", res, notes(t, f))
	}
}

func TestRememberEvictsLeastRecentlyUsed(t *testing.T) {
	f := newFixtureWith(t, func(f *fixture, d *actions.HandlerDeps) {
		d.NoteLimits = func(state.NoteScope) state.NoteLimits { return state.NoteLimits{MaxNotes: 2} }
	})
	for i, text := range []string{"one", "two", "three"} {
		f.now = f.now.Add(time.Minute)
		res := f.run(t, `remember {"scope":"global","content":"`+text+`"}`, actions.Call{})
		if i == 2 && !strings.Contains(res.Text, "to make room, the least recently used note(s) 1 were forgotten") {
			t.Errorf("third note: %+v", res)
		}
	}
	ns := notes(t, f)
	if len(ns) != 2 || ns[0].Text != "two" || ns[1].Text != "three" {
		t.Errorf("kept %+v", ns)
	}
}
