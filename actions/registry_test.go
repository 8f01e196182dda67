package actions

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestCatalogSchemas(t *testing.T) {
	r, err := NewBuiltinRegistry(Handlers{})
	if err != nil {
		t.Fatal(err)
	}
	cat := r.Catalog()
	if len(cat) != 12 {
		t.Fatalf("catalog has %d entries, want 12", len(cat))
	}
	for _, e := range cat {
		if strings.Contains(string(e.Schema), "$ref") {
			t.Errorf("%s schema has $ref: %s", e.Name, e.Schema)
		}
		var m map[string]any
		if err := json.Unmarshal(e.Schema, &m); err != nil {
			t.Errorf("%s schema: %v", e.Name, err)
		}
	}
	fields := r.Fields(NameSendMessage)
	want := []Field{
		{Name: "channelId", Type: "string", MinLength: 1, MaxLength: -1},
		{Name: "content", Type: "string", Required: true, MinLength: -1, MaxLength: -1},
		{Name: "replyTo", Type: "string", MinLength: -1, MaxLength: -1},
		{Name: "then", Type: "string", MinLength: -1, MaxLength: -1, Enum: []string{"next", "end"}},
	}
	if len(fields) != len(want) {
		t.Fatalf("send_message fields = %+v", fields)
	}
	for i := range want {
		if !reflect.DeepEqual(fields[i], want[i]) {
			t.Errorf("field %d = %+v, want %+v", i, fields[i], want[i])
		}
	}
	sleep := r.Fields(NameSleep)
	if len(sleep) != 1 || sleep[0].Type != "integer" || sleep[0].Minimum != "0" || sleep[0].Maximum != "" {
		t.Errorf("sleep fields = %+v, want duration, an integer of at least 0", sleep)
	}
}

func TestDecodeAndMarshal(t *testing.T) {
	r, err := NewBuiltinRegistry(Handlers{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, action, params, want, errPart string
	}{
		{name: "send", action: "send_message", params: `{"channelId":"42","content":"hi"}`, want: `{"action":"send_message","channelId":"42","content":"hi"}`},
		{name: "send missing content", action: "send_message", params: `{"channelId":"42"}`, errPart: "content"},
		{name: "send number id", action: "send_message", params: `{"channelId":42,"content":"x"}`, errPart: "channelId"},
		{name: "extra key", action: "continue", params: `{"x":1}`, errPart: "x"},
		{name: "sleep empty", action: "sleep", params: `{}`, want: `{"action":"sleep"}`},
		{name: "sleep", action: "sleep", params: `{"duration":3000}`, want: `{"action":"sleep","duration":3000}`},
		{name: "sleep negative", action: "sleep", params: `{"duration":-1}`, errPart: "duration"},
		{name: "remember", action: "remember", params: `{"scope":"user","content":"likes tea","shareable":true}`, want: `{"action":"remember","scope":"user","content":"likes tea","shareable":true}`},
		{name: "remember unknown scope", action: "remember", params: `{"scope":"planet","content":"x"}`, errPart: "scope"},
		{name: "remember empty", action: "remember", params: `{"scope":"global","content":""}`, errPart: "content"},
		{name: "forget", action: "forget", params: `{"id":"7"}`, want: `{"action":"forget","id":"7"}`},
		{name: "unknown", action: "dance", params: `{}`, errPart: "known actions are break, cancel_schedule, continue"},
		{name: "schedule", action: "schedule", params: `{"channelId":"c","content":"tea","at":"2026-03-01 09:00"}`, want: `{"action":"schedule","channelId":"c","content":"tea","at":"2026-03-01 09:00"}`},
		{name: "schedule empty content", action: "schedule", params: `{"channelId":"c","content":"","after":"1h"}`, errPart: "content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := r.Decode(tt.action, json.RawMessage(tt.params))
			if tt.errPart != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errPart) {
					t.Fatalf("err = %v, want it to mention %q", err, tt.errPart)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(a)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
	if _, err := r.Decode("nope", nil); !errors.Is(err, ErrUnknownAction) {
		t.Errorf("unknown action error = %v", err)
	}
}
