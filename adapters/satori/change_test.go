package satori_test

import (
	"testing"

	"github.com/airi-go/airi/adapters/satori/satoritest"
)

func TestMessageChanges(t *testing.T) {
	for _, rv := range revisions {
		t.Run(rv.name, func(t *testing.T) {
			srv := satoritest.NewServer(satoritest.Options{Revision: rv.rev})
			defer srv.Close()
			in := newInbox()
			start(t, testConfig(srv), &cursors{}, in)

			orig := satoritest.Message{ID: "m1", ChannelID: "g1", GuildID: "g1", UserID: "u1", UserName: "Ada", Content: "helo"}
			srv.PushMessage(orig)
			edited := orig
			edited.Content = `<at id="bot"/> hello`
			srv.PushUpdate(edited)
			srv.PushDelete("g1", "g1", "m1", 0)
			got := in.wait(t, 3)

			if m := got[0].msg; m.Edited || m.Deleted || m.Content != "helo" {
				t.Errorf("message = %+v", m)
			}
			if m := got[1].msg; !m.Edited || m.Deleted || m.PlatformID != "m1" || m.Content != "@bot hello" || !m.Mentioned || m.ChannelID != "g1" {
				t.Errorf("edit = %+v", m)
			}
			if m := got[2].msg; !m.Deleted || m.Edited || m.PlatformID != "m1" || m.ChannelID != "g1" || m.Content != "" {
				t.Errorf("deletion = %+v", m)
			}
		})
	}
}

func TestThreadTitleNamesItsGuild(t *testing.T) {
	srv := satoritest.NewServer(satoritest.Options{})
	defer srv.Close()
	in := newInbox()
	start(t, testConfig(srv), &cursors{}, in)
	srv.PushMessage(satoritest.Message{ID: "m1", ChannelID: "t1", ChannelName: "release plans", ParentID: "c1",
		GuildID: "g1", GuildName: "Makers", UserID: "u1", UserName: "Ada", Content: "hi"})
	srv.PushMessage(satoritest.Message{ID: "m2", ChannelID: "c1", ChannelName: "general",
		GuildID: "g1", GuildName: "Makers", UserID: "u1", UserName: "Ada", Content: "hi"})
	got := in.wait(t, 2)
	if got[0].ch.ID != "t1" || got[0].ch.Title != "Makers / release plans" {
		t.Errorf("thread channel = %+v", got[0].ch)
	}
	if got[1].ch.Title != "general" {
		t.Errorf("plain channel = %+v", got[1].ch)
	}
}
