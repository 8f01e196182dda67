package actions_test

import (
	"encoding/json"
	"testing"

	"github.com/airi-go/airi/actions"
)

func TestLeftOutChannelIsTheCallers(t *testing.T) {
	f := newFixture(t)
	res := f.run(t, `send_message {"content":"here"}`, actions.Call{Channel: "c2"})
	if !res.OK || len(f.sender.sent) != 1 || f.sender.sent[0].ChannelID != "c2" {
		t.Fatalf("result %+v, sent %+v; want one message to c2", res, f.sender.sent)
	}
	res = f.run(t, `send_message {"channelId":"c1","content":"there"}`, actions.Call{Channel: "c2"})
	if !res.OK || len(f.sender.sent) != 2 || f.sender.sent[1].ChannelID != "c1" {
		t.Fatalf("result %+v, sent %+v; a named channel must win", res, f.sender.sent)
	}
}

func TestInChannelFillsOnlyWhatIsLeftOut(t *testing.T) {
	reg, err := actions.NewBuiltinRegistry(actions.Handlers{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, params, want string }{
		{actions.NameSendMessage, `{"content":"hi"}`, `{"action":"send_message","channelId":"-100","content":"hi"}`},
		{actions.NameSendMessage, `{"channelId":"7","content":"hi"}`, `{"action":"send_message","channelId":"7","content":"hi"}`},
		{actions.NameReact, `{"messageId":"5","emoji":"👍"}`, `{"action":"react","channelId":"-100","messageId":"5","emoji":"👍"}`},
		{actions.NameReadUnread, `{}`, `{"action":"read_unread_messages","channelId":"-100"}`},
		{actions.NameSchedule, `{"content":"tea","after":"2h"}`, `{"action":"schedule","channelId":"-100","content":"tea","after":"2h"}`},
		{actions.NameListSchedules, `{}`, `{"action":"list_schedules","channelId":"-100"}`},
		{actions.NameContinue, `{}`, `{"action":"continue"}`},
	} {
		a, err := reg.Decode(tt.name, json.RawMessage(tt.params))
		if err != nil {
			t.Fatalf("%s %s: %v", tt.name, tt.params, err)
		}
		got, err := json.Marshal(actions.InChannel(a, "-100"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("%s %s: got %s, want %s", tt.name, tt.params, got, tt.want)
		}
	}
}
